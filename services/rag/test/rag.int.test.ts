import request from 'supertest';

import { ragBody, startRagApp, type RagTestApp } from './helpers';

const ALICE = { user_id: 'alice', org_id: 'acme' };
const BOB = { user_id: 'bob', org_id: 'globex' };
let t: RagTestApp;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await startRagApp();
  alice = await t.dbs.mintKey(ALICE);
  bob = await t.dbs.mintKey(BOB);
});
afterAll(() => t.close());

const post = (key: string, body: object) => request(t.app).post('/v3/rag/').set('x-api-key', key).send(body);

describe('POST /v3/rag/', () => {
  it('answers 200 with the configuration, its id and the defaults; user_id comes from the key', async () => {
    const res = await post(
      alice,
      ragBody({ collection_name: 'create_one', user_id: 'mallory', id: 'x', org_id: 'evil' }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...ragBody({ collection_name: 'create_one' }),
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      _id: res.body.id,
      user_id: 'alice',
      description: '',
      semantic_data_model: false,
      meta_data: {},
      created_at: expect.stringMatching(/Z$/),
      updated_at: null,
    });
    const read = await request(t.app).get(`/v3/rag/${res.body.id}/`).set('x-api-key', alice);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('keeps meta_data exactly, including keys a document store refuses, and accepts nulls for optional fields', async () => {
    const meta = { 'a.b': 1, $set: { x: [1, [2]] } };
    const res = await post(
      alice,
      ragBody({ collection_name: 'meta_one', meta_data: meta, description: null, semantic_data_model: true }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ meta_data: meta, description: '', semantic_data_model: true });
  });

  it('answers 422 per invalid field: missing fields, collection_name pattern, wrong types', async () => {
    const res = await post(alice, { collection_name: 'Bad-Name', semantic_data_model: 'yes', meta_data: [] });
    expect(res.status).toBe(422);
    const locs = (res.body.detail as { loc: string[] }[]).map((d) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.llm_credential_id',
        'body.embedding_credential_id',
        'body.vector_db_credential_id',
        'body.collection_name',
        'body.llm_model',
        'body.embedding_model',
        'body.vector_store_provider',
        'body.semantic_data_model',
        'body.meta_data',
      ]),
    );
  });

  it('answers 422 json_invalid for a broken body and 415 for a body that is not JSON', async () => {
    const broken = await request(t.app)
      .post('/v3/rag/')
      .set('x-api-key', alice)
      .set('content-type', 'application/json')
      .send('{"a":');
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const text = await request(t.app)
      .post('/v3/rag/')
      .set('x-api-key', alice)
      .set('content-type', 'text/plain')
      .send('hello');
    expect(text.status).toBe(415);
    expect(text.body).toEqual({ detail: 'Content-Type must be application/json' });
  });

  it('answers 409 for a collection name the owner already has, while another owner may use it', async () => {
    expect((await post(alice, ragBody({ collection_name: 'taken_name' }))).status).toBe(200);
    const again = await post(alice, ragBody({ collection_name: 'taken_name' }));
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/taken_name/);
    expect((await post(bob, ragBody({ collection_name: 'taken_name' }))).status).toBe(200);
  });

  it('answers 413 for a body over the 1 MiB JSON limit', async () => {
    const res = await post(alice, ragBody({ collection_name: 'too_big', meta_data: { blob: 'x'.repeat(1_100_000) } }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body too large' });
  });

  it('accepts limits at the edge and refuses one past them', async () => {
    expect((await post(alice, ragBody({ collection_name: 'a'.repeat(128) }))).status).toBe(200);
    const long = await post(alice, ragBody({ collection_name: 'b'.repeat(129) }));
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['body', 'collection_name']);
  });
});

describe('credential ids', () => {
  it("accepts the caller's own credential of the agent service", async () => {
    const id = await t.credential(await t.agent.dbs.mintKey(ALICE));
    const res = await post(
      alice,
      ragBody({ collection_name: 'own_cred', llm_credential_id: id, embedding_credential_id: id }),
    );
    expect(res.status).toBe(200);
    expect(res.body.llm_credential_id).toBe(id);
  });

  it("refuses another owner's credential and an unknown id of ours with 422 naming each field", async () => {
    const bobs = await t.credential(await t.agent.dbs.mintKey(BOB));
    const res = await post(
      alice,
      ragBody({ collection_name: 'foreign_cred', llm_credential_id: bobs, vector_db_credential_id: 'a'.repeat(24) }),
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'llm_credential_id'], msg: `Credential ${bobs} not found`, type: 'credential_not_found' },
      {
        loc: ['body', 'vector_db_credential_id'],
        msg: `Credential ${'a'.repeat(24)} not found`,
        type: 'credential_not_found',
      },
    ]);
  });
});

describe('GET, PUT, DELETE /v3/rag/{id}/', () => {
  it('replaces, then deletes; afterwards 404', async () => {
    const id = (await post(alice, ragBody({ collection_name: 'lifecycle' }))).body.id as string;
    const put = await request(t.app)
      .put(`/v3/rag/${id}`)
      .set('x-api-key', alice)
      .send(ragBody({ collection_name: 'lifecycle_2', description: 'new' }));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id,
      collection_name: 'lifecycle_2',
      description: 'new',
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await request(t.app).delete(`/v3/rag/${id}/`).set('x-api-key', alice)).status).toBe(204);
    const gone = await request(t.app).get(`/v3/rag/${id}/`).set('x-api-key', alice);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'RAG configuration not found' });
    expect((await request(t.app).delete(`/v3/rag/${id}/`).set('x-api-key', alice)).status).toBe(404);
  });

  it('answers 409 when a replacement takes a collection name the owner already uses', async () => {
    await post(alice, ragBody({ collection_name: 'first_name' }));
    const id = (await post(alice, ragBody({ collection_name: 'second_name' }))).body.id as string;
    const res = await request(t.app)
      .put(`/v3/rag/${id}/`)
      .set('x-api-key', alice)
      .send(ragBody({ collection_name: 'first_name' }));
    expect(res.status).toBe(409);
  });

  it('answers 404 for an id of the wrong format, an unknown id, and on PUT of a missing one', async () => {
    expect((await request(t.app).get('/v3/rag/not-an-id/').set('x-api-key', alice)).status).toBe(404);
    expect(
      (
        await request(t.app)
          .get(`/v3/rag/${'0'.repeat(24)}/`)
          .set('x-api-key', alice)
      ).status,
    ).toBe(404);
    const put = await request(t.app)
      .put(`/v3/rag/${'0'.repeat(24)}/`)
      .set('x-api-key', alice)
      .send(ragBody());
    expect(put.status).toBe(404);
  });
});

describe('owner isolation', () => {
  it("never shows, changes, deletes or counts another owner's configuration", async () => {
    const id = (await post(alice, ragBody({ collection_name: 'private_one' }))).body.id as string;
    expect((await request(t.app).get(`/v3/rag/${id}/`).set('x-api-key', bob)).status).toBe(404);
    expect(
      (
        await request(t.app)
          .put(`/v3/rag/${id}/`)
          .set('x-api-key', bob)
          .send(ragBody({ collection_name: 'stolen' }))
      ).status,
    ).toBe(404);
    expect((await request(t.app).delete(`/v3/rag/${id}/`).set('x-api-key', bob)).status).toBe(404);
    const bobs = await request(t.app).get('/v3/rag/').set('x-api-key', bob);
    expect(bobs.body.configs.every((c: { user_id: string }) => c.user_id === 'bob')).toBe(true);
    expect(bobs.body.configs.some((c: { id: string }) => c.id === id)).toBe(false);
    expect((await request(t.app).get(`/v3/rag/${id}/`).set('x-api-key', alice)).body.collection_name).toBe(
      'private_one',
    );
  });
});

describe('lists', () => {
  it("pages newest first with the total of every match; the user path needs the caller's own user_id", async () => {
    const carol = await t.dbs.mintKey({ user_id: 'carol', org_id: 'initech' });
    for (const n of ['l_one', 'l_two', 'l_three'])
      expect((await post(carol, ragBody({ collection_name: n }))).status).toBe(200);
    const page = await request(t.app).get('/v3/rag?skip=1&limit=1').set('x-api-key', carol);
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(3);
    expect(page.body.configs.map((c: { collection_name: string }) => c.collection_name)).toEqual(['l_two']);
    const all = await request(t.app).get('/v3/rag/user/carol/').set('x-api-key', carol);
    expect(all.body.configs.map((c: { collection_name: string }) => c.collection_name)).toEqual([
      'l_three',
      'l_two',
      'l_one',
    ]);
    const other = await request(t.app).get('/v3/rag/user/alice/').set('x-api-key', carol);
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ detail: 'Invalid Permission' });
  });

  it('refuses paging out of range with 422 at the query', async () => {
    for (const q of ['limit=0', 'limit=101', 'skip=-1', 'limit=abc']) {
      const res = await request(t.app).get(`/v3/rag/?${q}`).set('x-api-key', alice);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc[0]).toBe('query');
    }
  });
});

describe('API key', () => {
  it('answers 403 API key missing without a key and Invalid Permission for a bad or revoked one', async () => {
    const missing = await request(t.app).get(`/v3/rag/${'0'.repeat(24)}/`);
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({ detail: 'API key missing' });
    const bad = await request(t.app).get('/v3/rag/').set('x-api-key', 'sk_nope');
    expect(bad.body).toEqual({ detail: 'Invalid Permission' });
    expect(bad.status).toBe(403);
    const revoked = await t.dbs.mintKey({ user_id: 'dave', org_id: 'x' });
    await t.dbs.revokeKey(revoked);
    expect((await post(revoked, ragBody())).status).toBe(403);
  });
});
