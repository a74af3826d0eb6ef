/** Contract §7 for credentials: PUT merges (masked values keep the secret), type and meta_data, lists by type/provider. */
import request from 'supertest';

import { mongoose } from '@platform/db';

import { MAX_META_DATA_CHARS } from '../src/credentials/credential.schemas';
import { OPENAI_KEY, startInferenceFixture, type InferenceFixture } from './inference-fixture';
import { expectKeyRequired } from './key-checks';

let f: InferenceFixture;
let alice: string;
let bob: string;
let aliceElsewhere: string;

beforeAll(async () => {
  f = await startInferenceFixture();
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await f.t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  aliceElsewhere = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
});
afterAll(() => f.close());

const app = () => f.t.app;
const put = (key: string, id: string, body: unknown) =>
  request(app())
    .put(`/v3/providers/credentials/${id}`)
    .set('x-api-key', key)
    .send(body as object);
const get = (key: string, path: string) => request(app()).get(path).set('x-api-key', key);
const create = async (key: string, body: Record<string, unknown>): Promise<string> => {
  const res = await request(app()).post('/v3/providers/credentials').set('x-api-key', key).send(body);
  expect(res.status).toBe(201);
  return res.body.credential_id as string;
};
const toolCredential = (over: Record<string, unknown> = {}) => ({
  name: 'Search',
  provider_id: 'SerpApi',
  type: 'tool',
  credentials: { api_key: 'serp-secret-1' },
  ...over,
});

describe('PUT /v3/providers/credentials/{credential_id}', () => {
  it('a masked key keeps the stored secret: chat still authenticates to the provider with the original key', async () => {
    const id = await f.credential(alice, 'openai');
    const updated = await put(alice, id, {
      credential_id: id,
      user_id: 'mallory',
      name: 'Renamed',
      type: 'llm',
      credentials: { api_key: '***' },
      meta_data: {},
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ message: 'Credential updated successfully', credential_id: id });

    const agentId = await f.agent(alice, { llm_credential_id: id });
    const chat = await f.chat(alice, { agent_id: agentId, session_id: 'masked', message: 'hi' });
    expect(chat.status).toBe(200);
    expect(f.openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);

    const read = await get(alice, `/v3/providers/credentials/${id}`);
    expect(read.body).toMatchObject({
      name: 'Renamed',
      type: 'llm',
      credentials: { api_key: '***', base_url: f.openai.baseUrl },
      updated_at: expect.any(String),
    });
    const raw = await f.t.dbs.conn.collection('credentials').findOne({ name: 'Renamed' });
    expect(raw).toMatchObject({ user_id: 'alice', org_id: 'acme' });
  });

  it('a new key replaces the secret; a missing key keeps it while base_url changes', async () => {
    const id = await f.credential(alice, 'openai');
    const agentId = await f.agent(alice, { llm_credential_id: id });
    expect((await put(alice, id, { credentials: { api_key: 'sk-rotated-key-0123456789' } })).status).toBe(200);
    expect((await f.chat(alice, { agent_id: agentId, session_id: 'rotated', message: 'hi' })).status).toBe(200);
    expect(f.openai.requests.at(-1)!.headers.authorization).toBe('Bearer sk-rotated-key-0123456789');

    expect((await put(alice, id, { credentials: { base_url: `${f.openai.baseUrl}/` } })).status).toBe(200);
    expect((await f.chat(alice, { agent_id: agentId, session_id: 'rotated', message: 'again' })).status).toBe(200);
    expect(f.openai.requests.at(-1)!.headers.authorization).toBe('Bearer sk-rotated-key-0123456789');
    expect((await get(alice, `/v3/providers/credentials/${id}`)).body.credentials).toEqual({
      api_key: '***',
      base_url: `${f.openai.baseUrl}/`,
    });
  });

  it('stores type and meta_data; meta_data is replaced, and an empty body changes nothing else', async () => {
    const id = await create(alice, toolCredential({ meta_data: { env: 'prod', 'dotted.key': { $nested: [1, [2]] } } }));
    const before = (await get(alice, `/v3/providers/credentials/${id}`)).body;
    expect(before).toMatchObject({
      type: 'tool',
      provider_id: 'SerpApi',
      meta_data: { env: 'prod', 'dotted.key': { $nested: [1, [2]] } },
    });

    expect((await put(alice, id, { meta_data: { env: 'staging' }, type: 'guardrail' })).status).toBe(200);
    expect((await get(alice, `/v3/providers/credentials/${id}`)).body).toMatchObject({
      type: 'guardrail',
      meta_data: { env: 'staging' },
      name: 'Search',
    });
    expect((await put(alice, id, {})).status).toBe(200);
    expect(
      (await put(alice, id, { name: null, type: null, credentials: { api_key: null }, meta_data: null })).status,
    ).toBe(200);
    expect((await get(alice, `/v3/providers/credentials/${id}`)).body).toMatchObject({
      type: 'guardrail',
      meta_data: { env: 'staging' },
      name: 'Search',
    });
  });

  it('a credential created without type or meta_data has type "llm" and meta_data {}', async () => {
    const id = await f.credential(alice, 'anthropic');
    expect((await get(alice, `/v3/providers/credentials/${id}`)).body).toMatchObject({ type: 'llm', meta_data: {} });
  });

  it('validates the body: 422 per invalid field, nothing changed', async () => {
    const id = await create(alice, toolCredential());
    const cases: [unknown, string][] = [
      [{ name: '' }, 'body.name'],
      [{ type: 'has space' }, 'body.type'],
      [{ credentials: { api_key: 5 } }, 'body.credentials.api_key'],
      [{ credentials: { base_url: 'ftp://x' } }, 'body.credentials.base_url'],
      [{ meta_data: [1] }, 'body.meta_data'],
      [{ meta_data: { big: 'x'.repeat(MAX_META_DATA_CHARS) } }, 'body.meta_data'],
      [{ meta_data: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }, 'body.meta_data'],
      [[], 'body'],
    ];
    for (const [body, loc] of cases) {
      const res = await put(alice, id, body);
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(loc);
    }
    expect((await get(alice, `/v3/providers/credentials/${id}`)).body).toMatchObject({
      name: 'Search',
      type: 'tool',
      meta_data: {},
    });
  });

  it('another owner, an unknown or a malformed id → 404 Credential not found, nothing changed', async () => {
    const id = await create(alice, toolCredential());
    for (const [key, target] of [
      [bob, id],
      [aliceElsewhere, id],
      [alice, '0123456789abcdef01234567'],
      [alice, 'not-an-id'],
    ] as const) {
      const res = await put(key, target, { name: 'Stolen' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Credential not found' });
    }
    expect((await get(alice, `/v3/providers/credentials/${id}`)).body.name).toBe('Search');
  });
});

describe('GET /v3/providers/credentials/type/{type} and /user/{type}/{provider_id}', () => {
  it('lists the caller’s credentials of a type, and of a type and provider (any case), newest first, masked', async () => {
    const owner = await f.t.dbs.mintKey({ user_id: 'lister', org_id: 'acme' });
    const llmA = await create(owner, { name: 'A', provider_id: 'OpenAI', credentials: { api_key: 'k-a' } });
    const llmB = await create(owner, {
      name: 'B',
      provider_id: 'anthropic',
      type: 'llm',
      credentials: { api_key: 'k-b' },
    });
    const llmC = await create(owner, { name: 'C', provider_id: 'openai', credentials: { api_key: 'k-c' } });
    const tool = await create(owner, toolCredential());

    const byType = await get(owner, '/v3/providers/credentials/type/llm');
    expect(byType.status).toBe(200);
    expect(byType.body.total).toBe(3);
    expect(byType.body.credentials.map((c: { credential_id: string }) => c.credential_id)).toEqual([llmC, llmB, llmA]);
    expect(JSON.stringify(byType.body)).not.toMatch(/k-a|k-b|k-c/);
    expect((await get(owner, '/v3/providers/credentials/type/tool')).body).toMatchObject({
      total: 1,
      credentials: [{ credential_id: tool, type: 'tool' }],
    });
    expect((await get(owner, '/v3/providers/credentials/type/embedding')).body).toEqual({ credentials: [], total: 0 });

    for (const provider of ['openai', 'OPENAI', 'OpenAI']) {
      const res = await get(owner, `/v3/providers/credentials/user/llm/${provider}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.credentials.map((c: { credential_id: string }) => c.credential_id)).toEqual([llmC, llmA]);
    }
    expect((await get(owner, '/v3/providers/credentials/user/tool/serpapi')).body.total).toBe(1);
    expect((await get(owner, '/v3/providers/credentials/user/tool/openai')).body).toEqual({
      credentials: [],
      total: 0,
    });
    expect((await get(owner, '/v3/providers/credentials/user/llm/open.i')).body.total).toBe(0);
    const page = await get(owner, '/v3/providers/credentials/type/llm?skip=1&limit=1');
    expect(page.body).toMatchObject({ total: 3, credentials: [{ credential_id: llmB }] });
  });

  it('a stored credential written before types existed counts as llm', async () => {
    const owner = await f.t.dbs.mintKey({ user_id: 'legacy', org_id: 'acme' });
    const id = await create(owner, { name: 'Old', provider_id: 'openai', credentials: { api_key: 'k-old' } });
    await f.t.dbs.conn
      .collection('credentials')
      .updateOne({ _id: new mongoose.Types.ObjectId(id) }, { $unset: { type: '', meta_data_json: '' } });
    expect((await get(owner, '/v3/providers/credentials/type/llm')).body).toMatchObject({
      total: 1,
      credentials: [{ credential_id: id, type: 'llm', meta_data: {} }],
    });
    expect((await get(owner, '/v3/providers/credentials/user/llm/openai')).body.total).toBe(1);
  });

  it('another user or org sees none of them', async () => {
    await create(alice, toolCredential());
    for (const key of [bob, aliceElsewhere]) {
      expect((await get(key, '/v3/providers/credentials/type/tool')).body).toEqual({ credentials: [], total: 0 });
      expect((await get(key, '/v3/providers/credentials/user/tool/SerpApi')).body).toEqual({
        credentials: [],
        total: 0,
      });
    }
    expect((await get(alice, '/v3/providers/credentials/type/tool')).body.total).toBeGreaterThanOrEqual(1);
  });

  it('validates the path and the page: 422 with loc', async () => {
    const cases: [string, string][] = [
      ['/v3/providers/credentials/type/has%20space', 'path.type'],
      [`/v3/providers/credentials/type/${'x'.repeat(51)}`, 'path.type'],
      [`/v3/providers/credentials/user/llm/${'p'.repeat(101)}`, 'path.provider_id'],
      ['/v3/providers/credentials/type/llm?limit=0', 'query.limit'],
      ['/v3/providers/credentials/user/llm/openai?skip=-1', 'query.skip'],
    ];
    for (const [path, loc] of cases) {
      const res = await get(alice, path);
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(loc);
    }
  });
});

describe('auth', () => {
  const calls: [string, () => request.Test][] = [
    ['PUT', () => request(app()).put('/v3/providers/credentials/0123456789abcdef01234567').send({ name: 'x' })],
    ['GET type', () => request(app()).get('/v3/providers/credentials/type/llm')],
    ['GET user', () => request(app()).get('/v3/providers/credentials/user/llm/openai')],
  ];
  it.each(calls)('%s without a key → 403 API key missing; with an unknown key → 403 Invalid Permission', (_n, call) =>
    expectKeyRequired(call),
  );
});
