import request from 'supertest';

import { ragBody, startRagApp, type RagTestApp } from './helpers';

// What public clients of the same API expect of RAG configurations (contract §7): PUT merges, `_id` beside `id`,
// and the list of a user asked with the caller's own API key in the path, which is never logged or counted.
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
const put = (key: string, id: string, body: object) =>
  request(t.app).put(`/v3/rag/${id}/`).set('x-api-key', key).send(body);
const get = async (key: string, id: string) =>
  (await request(t.app).get(`/v3/rag/${id}/`).set('x-api-key', key)).body as Record<string, unknown>;

describe('PUT /v3/rag/{id}/ merges', () => {
  it('changes only the fields sent: {description} alone keeps the other fields', async () => {
    const created = await post(alice, ragBody({ collection_name: 'merge_one', meta_data: { team: 'docs' } }));
    const before = await get(alice, created.body.id);
    const res = await put(alice, created.body.id, { description: 'Product manuals' });
    expect(res.status).toBe(200);
    const { description: _d, updated_at: _u, ...rest } = before;
    expect(res.body).toEqual({ ...rest, description: 'Product manuals', updated_at: expect.stringMatching(/Z$/) });
    expect(await get(alice, created.body.id)).toEqual(res.body);
    expect((await put(alice, created.body.id, {})).body).toMatchObject({ ...rest, description: 'Product manuals' });
  });

  it('an explicit null clears a nullable field; a required field cannot be null or empty', async () => {
    const id = (
      await post(alice, ragBody({ collection_name: 'merge_null', description: 'x', semantic_data_model: true }))
    ).body.id as string;
    await put(alice, id, { meta_data: { a: 1 } });
    const cleared = await put(alice, id, { description: null, semantic_data_model: null, meta_data: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({
      description: '',
      semantic_data_model: false,
      meta_data: {},
      collection_name: 'merge_null',
    });
    const bad = await put(alice, id, { collection_name: null, llm_model: '', vector_store_provider: 5 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.collection_name',
      'body.llm_model',
      'body.vector_store_provider',
    ]);
    expect((await put(alice, id, { collection_name: 'Not Valid' })).status).toBe(422);
    expect((await get(alice, id)).collection_name).toBe('merge_null');
  });

  it('a collection_name the owner already uses is still 409, and the configuration is unchanged', async () => {
    await post(alice, ragBody({ collection_name: 'merge_taken' }));
    const id = (await post(alice, ragBody({ collection_name: 'merge_free' }))).body.id as string;
    const res = await put(alice, id, { collection_name: 'merge_taken', description: 'moved' });
    expect(res.status).toBe(409);
    expect(await get(alice, id)).toMatchObject({ collection_name: 'merge_free', description: '' });
    expect((await put(alice, id, { collection_name: 'merge_free_2' })).body.collection_name).toBe('merge_free_2');
  });

  it('credential ids sent are checked (ours must be the caller’s); those not sent are not asked about', async () => {
    const mine = await t.credential(await t.agent.dbs.mintKey(ALICE));
    const theirs = await t.credential(await t.agent.dbs.mintKey(BOB));
    const id = (await post(alice, ragBody({ collection_name: 'merge_creds', llm_credential_id: mine }))).body
      .id as string;
    const refused = await put(alice, id, { embedding_credential_id: theirs, description: 'x' });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'embedding_credential_id'], type: 'credential_not_found' }),
    ]);
    const ok = await put(alice, id, { embedding_credential_id: mine });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ llm_credential_id: mine, embedding_credential_id: mine, description: '' });
  });

  it("another owner's, an unknown or a malformed id → 404", async () => {
    const id = (await post(alice, ragBody({ collection_name: 'merge_owned' }))).body.id as string;
    for (const [key, path] of [
      [bob, id],
      [alice, '0'.repeat(24)],
      [alice, 'nope'],
    ] as const) {
      const res = await put(key, path, { description: 'stolen' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'RAG configuration not found' });
    }
    expect((await get(alice, id)).description).toBe('');
  });
});

describe('_id', () => {
  it('every configuration answer carries _id equal to id: create, read, update and both lists', async () => {
    const key = await t.dbs.mintKey({ user_id: 'frontend', org_id: 'acme' });
    const created = await post(key, ragBody({ collection_name: 'with_underscore_id' }));
    const id = created.body.id as string;
    expect(created.body._id).toBe(id);
    expect((await get(key, id))._id).toBe(id);
    expect((await put(key, id, { description: 'd' })).body._id).toBe(id);
    for (const path of ['/v3/rag/', '/v3/rag/user/frontend/']) {
      const list = await request(t.app).get(path).set('x-api-key', key);
      expect(list.body.configs).toEqual([expect.objectContaining({ id, _id: id })]);
    }
  });
});

describe('GET /v3/rag/user/{user_id}/ with the caller’s own API key', () => {
  it('lists the caller’s configurations; another key or a key-shaped string is 403', async () => {
    const key = await t.dbs.mintKey({ user_id: 'sdk_user', org_id: 'acme' });
    const other = await t.dbs.mintKey({ user_id: 'sdk_other', org_id: 'acme' });
    await post(key, ragBody({ collection_name: 'sdk_one' }));
    await post(other, ragBody({ collection_name: 'sdk_two' }));
    const byKey = await request(t.app).get(`/v3/rag/user/${key}/`).set('x-api-key', key);
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual((await request(t.app).get('/v3/rag/').set('x-api-key', key)).body);
    expect(byKey.body.configs.map((c: { collection_name: string }) => c.collection_name)).toEqual(['sdk_one']);
    const paged = await request(t.app).get(`/v3/rag/user/${key}/?skip=1`).set('x-api-key', key);
    expect(paged.body).toEqual({ configs: [], total: 1 });
    // The key with its last character changed (to another one: a key may end in `x`), and with one more.
    const changed = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
    for (const path of [other, changed, `${key}x`, 'sdk_other']) {
      const res = await request(t.app).get(`/v3/rag/user/${path}/`).set('x-api-key', key);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 403,
        body: { detail: 'Invalid Permission' },
      });
    }
  });

  it('the key in the path is never written to the logs or counted in the metrics', async () => {
    const key = await t.dbs.mintKey({ user_id: 'quiet', org_id: 'acme' });
    const from = t.lines.length;
    expect((await request(t.app).get(`/v3/rag/user/${key}/`).set('x-api-key', key)).status).toBe(200);
    expect((await request(t.app).get(`/v3/rag/user/${key}`).set('x-api-key', alice)).status).toBe(403);
    const lines = t.lines.slice(from);
    expect(lines.some((l) => l.includes('/v3/rag/user/'))).toBe(true); // the requests were logged
    expect(lines.join('\n')).not.toContain(key);
    expect(lines.join('\n')).not.toContain(key.slice(3));
    const metrics = await request(t.app).get('/metrics');
    // the route's template, as the route table declares it (the document's path, its trailing slash included)
    expect(metrics.text).toContain('route="/v3/rag/user/:user_id/"');
    expect(metrics.text).not.toContain(key.slice(3));
  });
});
