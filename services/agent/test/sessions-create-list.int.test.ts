/**
 * Sessions v3 (`/v3/sessions`) on the real app and FerretDB: create and get (bad bodies, the metadata bounds),
 * sessions made by chat turns alone (read, listed, backfilled), list with limit/offset/agent filter and bad queries.
 * The app: sessions-fixture.ts.
 */
import { backfillSessionRecords } from '../src/sessions/session.backfill';
import { sessionModel } from '../src/sessions/session.model';
import { create, deleteOne, getOne, ISO, list, messages, patchOne, say } from './sessions-calls';
import { agentId, alice, aliceElsewhere, bob, f, otherAgentId, useSessionsApp } from './sessions-fixture';

useSessionsApp();

describe('create and get', () => {
  it('creates a session for the caller’s agent, with a new id when none is given', async () => {
    const res = await create(alice, {
      agent_id: agentId,
      metadata: { topic: 'billing', tags: ['a', 'b'], nested: { n: 1 } },
      user_id: 'mallory',
      org_id: 'evil',
      created_at: '1999-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: 'alice',
      org_id: 'acme',
      agent_id: agentId,
      metadata: { topic: 'billing', tags: ['a', 'b'], nested: { n: 1 } },
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at,
    });
    expect((await getOne(alice, res.body.session_id)).body).toEqual(res.body);
  });

  it('takes the session id given, the agent id as a JSON integer, and keeps metadata keys a store refuses', async () => {
    const metadata = { $set: { 'a.b': 1 }, 'dotted.key': true, empty: {}, none: [] };
    const res = await create(alice, { agent_id: Number(agentId), session_id: 'chosen id/1', metadata });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ session_id: 'chosen id/1', agent_id: agentId, metadata });
    expect((await getOne(alice, 'chosen id/1')).body.metadata).toEqual(metadata);
    expect((await create(alice, { agent_id: agentId, session_id: 'no-meta', metadata: null })).body.metadata).toEqual(
      {},
    );
  });

  it('refuses a session id the caller has, whether created or only chatted in (409); another owner may use it', async () => {
    await create(alice, { agent_id: agentId, session_id: 'dup' }).expect(201);
    expect((await create(alice, { agent_id: agentId, session_id: 'dup' })).status).toBe(409);
    await say(alice, agentId, 'chatted-first', 'hello');
    const taken = await create(alice, { agent_id: agentId, session_id: 'chatted-first' });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toMatch(/already exists/);
    const bobAgent = await f.agent(bob, { llm_credential_id: await f.credential(bob, 'openai') });
    expect((await create(bob, { agent_id: bobAgent, session_id: 'dup' })).status).toBe(201);
  });

  it('answers 404 Agent not found for an agent that is not the caller’s, or no agent id at all', async () => {
    expect((await create(bob, { agent_id: agentId })).body).toEqual({ detail: 'Agent not found' });
    expect((await create(aliceElsewhere, { agent_id: agentId })).status).toBe(404);
    expect((await create(alice, { agent_id: '999999999' })).body).toEqual({ detail: 'Agent not found' });
    expect((await create(alice, { agent_id: 'abc' })).body).toEqual({ detail: 'Agent not found' });
  });

  it('refuses malformed bodies with 422 at the field', async () => {
    const cases: [unknown, string[]][] = [
      [{}, ['body', 'agent_id']],
      [{ agent_id: agentId, session_id: '' }, ['body', 'session_id']],
      [{ agent_id: agentId, session_id: 'x'.repeat(201) }, ['body', 'session_id']],
      [{ agent_id: agentId, session_id: 7 }, ['body', 'session_id']],
      [{ agent_id: agentId, metadata: ['a'] }, ['body', 'metadata']],
      [{ agent_id: agentId, metadata: 'text' }, ['body', 'metadata']],
      [{ agent_id: -1 }, ['body', 'agent_id']],
      [{ agent_id: 0.5 }, ['body', 'agent_id']],
    ];
    for (const [body, loc] of cases) {
      const res = await create(alice, body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(loc);
    }
  });

  it('holds metadata to 64 keys and 16384 bytes of JSON', async () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect((await create(alice, { agent_id: agentId, metadata: keys(64) })).status).toBe(201);
    const tooMany = await create(alice, { agent_id: agentId, metadata: keys(65) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0].loc).toEqual(['body', 'metadata']);
    // 16384 bytes exactly ({"t":"..."} is 8 bytes around the text; é is 2 bytes).
    expect((await create(alice, { agent_id: agentId, metadata: { t: 'é'.repeat(8188) } })).status).toBe(201);
    const tooBig = await create(alice, { agent_id: agentId, metadata: { t: 'é'.repeat(8189) } });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.detail[0]).toMatchObject({ loc: ['body', 'metadata'], msg: expect.stringMatching(/16384/) });
  });
});

describe('sessions made by chat turns', () => {
  it('are read, listed and paged like created ones, their messages included', async () => {
    await say(alice, agentId, 'implicit-1', 'one');
    await say(alice, agentId, 'implicit-1', 'two');
    const got = await getOne(alice, 'implicit-1');
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      session_id: 'implicit-1',
      user_id: 'alice',
      org_id: 'acme',
      agent_id: agentId,
      metadata: {},
      created_at: expect.stringMatching(ISO),
      updated_at: got.body.created_at,
    });
    expect((await list(alice, '?limit=100')).body.sessions).toContainEqual(got.body);
    const page = await messages(alice, 'implicit-1');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(page.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'echo: two',
      'two',
      'echo: one',
      'one',
    ]);
    const second = await messages(alice, 'implicit-1', '?limit=1&offset=1');
    expect(second.body).toMatchObject({ total: 4, limit: 1, offset: 1, messages: [{ content: 'two', role: 'user' }] });
    expect((await messages(alice, 'implicit-1', `?agent_id=${otherAgentId}`)).body).toMatchObject({
      total: 0,
      messages: [],
    });
  });

  it('are readable without a record (sessions stored before records existed), and a patch gives them one', async () => {
    await say(alice, agentId, 'no-record', 'hi');
    await sessionModel(f.t.dbs.conn).deleteOne({ user_id: 'alice', org_id: 'acme', session_id: 'no-record' });
    const got = await getOne(alice, 'no-record');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ session_id: 'no-record', agent_id: agentId, metadata: {} });
    const listed = async () =>
      (await list(alice, '?limit=100')).body.sessions.map((s: { session_id: string }) => s.session_id);
    expect(await listed()).not.toContain('no-record');
    expect((await messages(alice, 'no-record')).body.total).toBe(2);
    const patched = await patchOne(alice, 'no-record', { metadata: { label: 'kept' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ created_at: got.body.created_at, metadata: { label: 'kept' } });
    expect(await listed()).toContain('no-record');
  });

  it('the backfill gives sessions stored before records existed theirs, dated by their first turn, once per database', async () => {
    await say(alice, agentId, 'old-1', 'first');
    await say(alice, agentId, 'old-1', 'second');
    await say(alice, otherAgentId, 'old-2', 'y');
    await say(alice, agentId, 'kept', 'x');
    const before = await getOne(alice, 'old-1');
    await patchOne(alice, 'kept', { metadata: { label: 'mine' } });
    const Session = sessionModel(f.t.dbs.conn);
    await Session.deleteMany({ session_id: { $in: ['old-1', 'old-2'] } });
    await f.t.dbs.conn.db!.collection('migrations').deleteOne({ _id: 'sessions-backfill-1' as never });
    const listed = async (key: string) =>
      (await list(key, '?limit=100')).body.sessions.map((s: { session_id: string }) => s.session_id);
    expect(await listed(alice)).not.toContain('old-1');

    const done = await backfillSessionRecords(f.t.dbs.conn);
    expect(done!.sessions).toBeGreaterThanOrEqual(3);
    expect(await listed(alice)).toContain('old-1');
    const ofOther = await list(alice, `?agent_id=${otherAgentId}&limit=100`);
    expect(ofOther.body.sessions.map((s: { session_id: string }) => s.session_id)).toContain('old-2');
    const got = await getOne(alice, 'old-1');
    expect(got.body).toMatchObject({ agent_id: agentId, metadata: {}, created_at: before.body.created_at });
    // A session that had its record keeps it.
    expect((await getOne(alice, 'kept')).body.metadata).toEqual({ label: 'mine' });
    // Done once: a second run finds the mark and reads nothing.
    expect(await backfillSessionRecords(f.t.dbs.conn)).toBeNull();
    expect((await deleteOne(alice, 'old-2')).status).toBe(204); // the next test counts that agent's sessions
  });

  it('concurrent first turns of many sessions each get their record', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `burst-${i}`);
    await Promise.all(ids.map((id) => say(alice, otherAgentId, id, `m ${id}`)));
    const res = await list(alice, `?agent_id=${otherAgentId}&limit=100`);
    expect(res.body.sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual([...ids].sort());
    expect(res.body.total).toBe(12);
  });

  it('the messages of a created session are its chat turns', async () => {
    const { body } = await create(alice, { agent_id: agentId, metadata: { a: 1 } });
    expect((await messages(alice, body.session_id)).body).toEqual({ messages: [], total: 0, limit: 50, offset: 0 });
    await say(alice, agentId, body.session_id, 'first words');
    expect((await messages(alice, body.session_id)).body.messages.map((m: { role: string }) => m.role)).toEqual([
      'assistant',
      'user',
    ]);
    // The turn kept the created record as it was.
    expect((await getOne(alice, body.session_id)).body).toEqual(body);
  });
});

describe('list', () => {
  let lister: string;
  const made: string[] = [];
  beforeAll(async () => {
    lister = await f.t.dbs.mintKey({ user_id: 'lister', org_id: 'acme' });
    const credential = await f.credential(lister, 'openai');
    const a = await f.agent(lister, { llm_credential_id: credential });
    const b = await f.agent(lister, { llm_credential_id: credential });
    for (const agent of [a, b, a, b, a]) {
      const res = await create(lister, { agent_id: agent, metadata: { agent } });
      made.push(res.body.session_id as string);
    }
  });

  it('lists newest first with its total, limit and offset', async () => {
    const all = await list(lister);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 5, limit: 50, offset: 0 });
    expect(all.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([...made].reverse());
    const page = await list(lister, '?limit=2&offset=1');
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([made[3], made[2]]);
    expect((await list(lister, '?offset=10')).body).toEqual({ sessions: [], total: 5, limit: 50, offset: 10 });
  });

  it('keeps one agent’s sessions with agent_id', async () => {
    const agent = (await getOne(lister, made[0]!)).body.agent_id as string;
    const res = await list(lister, `?agent_id=${agent}`);
    expect(res.body.total).toBe(3);
    expect(res.body.sessions.every((s: { agent_id: string }) => s.agent_id === agent)).toBe(true);
    expect((await list(lister, '?agent_id=424242')).body).toMatchObject({ total: 0, sessions: [] });
  });

  it('refuses bad queries with 422 at the parameter', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=x', 'limit'],
      ['?offset=-1', 'offset'],
      ['?agent_id=abc', 'agent_id'],
      ['?agent_id=0', 'agent_id'],
    ] as const) {
      const res = await list(lister, query);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      expect(res.body.detail[0].loc).toEqual(['query', field]);
    }
    expect((await messages(alice, 'implicit-1', '?limit=500')).status).toBe(422);
  });
});
