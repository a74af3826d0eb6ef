/**
 * Sessions v3 (`/v3/sessions`) on the real app and FerretDB: patch (JSON merge patch of the metadata), delete (record
 * and stored messages), owner isolation and bad ids. The app: sessions-fixture.ts.
 */
import { sessionModel } from '../src/sessions/session.model';
import { api, create, deleteOne, getOne, ISO, list, messages, notFound, patchOne, say } from './sessions-calls';
import { agentId, alice, aliceElsewhere, bob, f, useSessionsApp } from './sessions-fixture';

useSessionsApp();

describe('patch', () => {
  it('merges the metadata (JSON merge patch: null removes a key, objects merge, other values replace)', async () => {
    const { body: s } = await create(alice, {
      agent_id: agentId,
      metadata: { a: 1, b: { c: 1, d: 2 }, list: [1, 2], keep: 'yes' },
    });
    const res = await patchOne(alice, s.session_id, {
      metadata: { a: null, b: { c: null, e: 3 }, list: [3], f: 'x', gone: null },
      agent_id: '1',
      created_at: '1999-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...s,
      metadata: { b: { d: 2, e: 3 }, list: [3], keep: 'yes', f: 'x' },
      updated_at: expect.stringMatching(ISO),
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
    expect((await getOne(alice, s.session_id)).body).toEqual(res.body);
    // null clears the whole metadata
    expect((await patchOne(alice, s.session_id, { metadata: null })).body.metadata).toEqual({});
  });

  it('takes a "__proto__" key as data, never as the object\'s prototype', async () => {
    const { body: s } = await create(alice, { agent_id: agentId, metadata: { a: 1 } });
    const res = await api()
      .patch(`/v3/sessions/${s.session_id}`)
      .set('x-api-key', alice)
      .set('content-type', 'application/json')
      .send('{"metadata":{"__proto__":{"polluted":true},"b":2}}');
    expect(res.status).toBe(200);
    expect(res.text).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const cleared = await api()
      .patch(`/v3/sessions/${s.session_id}`)
      .set('x-api-key', alice)
      .set('content-type', 'application/json')
      .send('{"metadata":{"__proto__":null}}');
    expect(cleared.body.metadata).toEqual({ a: 1, b: 2 });
  });

  it('holds the merged metadata to the bounds', async () => {
    const keys = (n: number, p: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${p}${i}`, i]));
    const { body: s } = await create(alice, { agent_id: agentId, metadata: keys(40, 'a') });
    const res = await patchOne(alice, s.session_id, { metadata: keys(30, 'b') });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'metadata'], msg: 'Metadata has at most 64 keys', type: 'value_error' },
    ]);
    // removing some first makes room
    const room = { ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, null])), ...keys(30, 'b') };
    expect((await patchOne(alice, s.session_id, { metadata: room })).status).toBe(200);
    const big = await patchOne(alice, s.session_id, { metadata: { big: 'x'.repeat(16_000) } });
    expect(big.status).toBe(422);
    expect((await getOne(alice, s.session_id)).body.metadata.big).toBeUndefined();
  });

  it('concurrent patches of different keys: each lands or is refused whole (409), none is lost', async () => {
    const { body: s } = await create(alice, { agent_id: agentId });
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => patchOne(alice, s.session_id, { metadata: { [`k${i}`]: i } })),
    );
    // Each landed, or (others kept winning) was refused whole with 409: none is lost by another's write.
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const landed = results.flatMap((r, i) => (r.status === 200 ? [`k${i}`] : []));
    expect(landed.length).toBeGreaterThan(0);
    const metadata = (await getOne(alice, s.session_id)).body.metadata as Record<string, number>;
    expect(Object.keys(metadata).sort()).toEqual(landed.sort());
  });

  it('refuses bodies without metadata or with a non-object, and answers 404 for a session that does not exist', async () => {
    const { body: s } = await create(alice, { agent_id: agentId });
    for (const body of [{}, { metadata: [] }, { metadata: 'x' }, { metadata: 1 }]) {
      const res = await patchOne(alice, s.session_id, body);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'metadata']);
    }
    expect((await patchOne(alice, 'never-was', { metadata: {} })).body).toEqual(notFound);
  });
});

describe('delete', () => {
  it('removes the record and the stored messages: memory no longer sees them, and the next turn starts afresh', async () => {
    const id = 'to-delete';
    await say(alice, agentId, id, 'remember me');
    await patchOne(alice, id, { metadata: { x: 1 } }).expect(200);
    expect((await deleteOne(alice, id)).status).toBe(204);
    expect((await getOne(alice, id)).body).toEqual(notFound);
    expect((await messages(alice, id)).status).toBe(404);
    expect((await api().get(`/v3/inference/sessions/${id}/messages`).set('x-api-key', alice)).body.total).toBe(0);
    expect((await deleteOne(alice, id)).status).toBe(404);
    await say(alice, agentId, id, 'who am I?');
    expect(f.openai.bodies().at(-1)!.messages).toEqual([{ role: 'user', content: 'who am I?' }]);
    // The session exists again through that turn, listed, with fresh metadata.
    const again = await getOne(alice, id);
    expect(again.body.metadata).toEqual({});
    expect((await list(alice, '?limit=100')).body.sessions.map((s: { session_id: string }) => s.session_id)).toContain(
      id,
    );
  });

  it('deletes a session known only by its turns, and one that never had a turn', async () => {
    await say(alice, agentId, 'turns-only', 'x');
    await sessionModel(f.t.dbs.conn).deleteOne({ user_id: 'alice', org_id: 'acme', session_id: 'turns-only' });
    expect((await deleteOne(alice, 'turns-only')).status).toBe(204);
    expect((await getOne(alice, 'turns-only')).status).toBe(404);
    const { body } = await create(alice, { agent_id: agentId });
    expect((await deleteOne(alice, body.session_id)).status).toBe(204);
    expect((await getOne(alice, body.session_id)).status).toBe(404);
  });
});

describe('owners', () => {
  it('another user or organization gets 404 for the session, an empty list, and changes nothing', async () => {
    const { body: s } = await create(alice, { agent_id: agentId, session_id: 'private', metadata: { secret: 1 } });
    await say(alice, agentId, 'private', 'mine');
    for (const key of [bob, aliceElsewhere]) {
      expect((await getOne(key, 'private')).body).toEqual(notFound);
      expect((await messages(key, 'private')).body).toEqual(notFound);
      expect((await patchOne(key, 'private', { metadata: { secret: 2 } })).body).toEqual(notFound);
      expect((await deleteOne(key, 'private')).body).toEqual(notFound);
      const theirs = await list(key, '?limit=100');
      expect(theirs.body.sessions.map((x: { session_id: string }) => x.session_id)).not.toContain('private');
    }
    expect((await list(aliceElsewhere)).body).toMatchObject({ total: 0, sessions: [] });
    expect((await getOne(alice, 'private')).body).toEqual(s);
    expect((await messages(alice, 'private')).body.total).toBe(2);
  });

  it('an id no session can have is simply not found', async () => {
    const long = 'x'.repeat(201);
    expect((await getOne(alice, long)).body).toEqual(notFound);
    expect((await patchOne(alice, long, { metadata: {} })).status).toBe(404);
    expect((await deleteOne(alice, long)).status).toBe(404);
    expect((await messages(alice, long)).status).toBe(404);
  });

  it('needs an API key', async () => {
    expect((await api().get('/v3/sessions')).status).toBe(403);
    expect((await api().post('/v3/sessions').send({ agent_id: agentId })).status).toBe(403);
  });
});
