/** Contract §7 for tools: /v3/tools/all/user, bulk delete, the provider catalog, tool_set_name as sent. */
import request from 'supertest';

import { startAgentApp, type AgentTestApp } from './helpers';
import { expectKeyRequired } from './key-checks';
import { openApi30 } from './pet-store-docs';

let t: AgentTestApp;
let alice: string;
let bob: string;
let aliceElsewhere: string;
const API = 'http://127.0.0.1:9/api';

beforeAll(async () => {
  t = await startAgentApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  aliceElsewhere = await t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
});
afterAll(() => t.close());

const get = (key: string, path: string) => request(t.app).get(path).set('x-api-key', key);
const bulkDelete = (key: string, body: unknown) =>
  request(t.app)
    .post('/v3/tools/bulk-delete')
    .set('x-api-key', key)
    .send(body as object);
async function toolSet(key: string, set: string): Promise<string[]> {
  const res = await request(t.app)
    .post('/v3/tools/')
    .set('x-api-key', key)
    .send({ tool_set_name: set, openapi_schema: openApi30(API) });
  expect(res.status).toBe(201);
  return res.body.tool_ids as string[];
}
const ids = (body: { tools: { id?: string; _id?: string }[] }) => body.tools.map((x) => x.id ?? x._id);

describe('GET /v3/tools/all/user', () => {
  it('answers the same body as GET /v3/tools/, with tool_set_name exactly as sent', async () => {
    const owner = await t.dbs.mintKey({ user_id: 'lister', org_id: 'acme' });
    const tools = await toolSet(owner, 'pet_store_2');
    const all = await get(owner, '/v3/tools/all/user');
    expect(all.status).toBe(200);
    expect(all.body).toEqual((await get(owner, '/v3/tools/')).body);
    expect(all.body.total).toBe(tools.length);
    expect(new Set(ids(all.body))).toEqual(new Set(tools));
    for (const item of all.body.tools)
      expect(item).toMatchObject({ tool_set_name: 'pet_store_2', name: 'openapi-pet_store_2', enabled: true });
    expect((await get(owner, `/v3/tools/openapi/${tools[0]}`)).body.tool_set_name).toBe('pet_store_2');
    expect((await get(owner, '/v3/tools/all/user?limit=1&skip=1')).body).toMatchObject({
      total: tools.length,
      tools: [expect.any(Object)],
    });
  });

  it('another owner sees an empty list; a bad page → 422', async () => {
    await toolSet(alice, 'alice_only');
    for (const key of [bob, aliceElsewhere])
      expect((await get(key, '/v3/tools/all/user')).body).toEqual({ tools: [], total: 0 });
    const res = await get(alice, '/v3/tools/all/user?limit=101');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
  });
});

describe('GET /v3/providers/tools/all', () => {
  it('lists the caller’s tools as a provider catalog: _id and provider_id are the tool id', async () => {
    const owner = await t.dbs.mintKey({ user_id: 'catalog', org_id: 'acme' });
    const tools = await toolSet(owner, 'agify');
    const res = await get(owner, '/v3/providers/tools/all');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(tools.length);
    const listPets = res.body.tools.find((x: { _id: string }) => x._id === 'openapi-agify-listPets');
    expect(listPets).toEqual({
      _id: 'openapi-agify-listPets',
      provider_id: 'openapi-agify-listPets',
      provider_source: 'openapi',
      name: 'openapi-agify',
      description: 'List pets',
      enabled: true,
      meta_data: { tool_set_name: 'agify', method: 'GET', path: '/pets' },
    });
    await request(t.app).patch('/v3/tools/openapi-agify-listPets?enabled=false').set('x-api-key', owner).expect(200);
    const after = await get(owner, '/v3/providers/tools/all');
    expect(after.body.tools.find((x: { _id: string }) => x._id === 'openapi-agify-listPets').enabled).toBe(false);
  });

  it('another owner sees an empty catalog; a bad page → 422', async () => {
    await toolSet(alice, 'catalog_alice');
    for (const key of [bob, aliceElsewhere])
      expect((await get(key, '/v3/providers/tools/all')).body).toEqual({ tools: [], total: 0 });
    const res = await get(alice, '/v3/providers/tools/all?skip=x');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'skip']);
  });
});

it('the public client’s attach flow: catalog lookup, then PUT of the agent with provider_id tools and their configs', async () => {
  const owner = await t.dbs.mintKey({ user_id: 'attacher', org_id: 'acme' });
  await toolSet(owner, 'pets');
  const created = await request(t.app)
    .post('/v3/agents/')
    .set('x-api-key', owner)
    .send({ name: 'Pet bot', provider_id: 'OpenAI', model: 'gpt-4o-mini' });
  const catalog = (await get(owner, '/v3/providers/tools/all')).body.tools as {
    _id: string;
    provider_id: string;
    provider_source: string;
  }[];
  const entry = catalog.find((x) => x._id === 'openapi-pets-getPet')!;
  const toolConfigs = [
    {
      tool_name: entry.provider_id,
      tool_source: entry.provider_source,
      action_names: [entry.provider_id.split('-').pop()],
      persist_auth: false,
    },
  ];
  const put = await request(t.app)
    .put(`/v3/agents/${created.body.agent_id}`)
    .set('x-api-key', owner)
    .send({
      name: 'Pet bot',
      provider_id: 'OpenAI',
      model: 'gpt-4o-mini',
      tools: [entry.provider_id],
      tool_configs: toolConfigs,
    });
  expect(put.status).toBe(200);
  const agent = (await request(t.app).get(`/v3/agents/${created.body.agent_id}`).set('x-api-key', owner)).body;
  expect(agent).toMatchObject({
    tools: ['openapi-pets-getPet'],
    tool_configs: [{ tool_name: 'openapi-pets-getPet', tool_source: 'openapi', action_names: ['getPet'] }],
  });
});

describe('POST /v3/tools/bulk-delete', () => {
  it('deletes the caller’s tools among the ids and names the others not_found (a repeated id counts once)', async () => {
    const [a, b, c] = await toolSet(alice, 'bulk_one');
    const res = await bulkDelete(alice, { tool_ids: [a, 'openapi-nope-x', b, a] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 2, not_found: ['openapi-nope-x'] });
    await get(alice, `/v3/tools/${a}`).expect(404);
    await get(alice, `/v3/tools/${b}`).expect(404);
    await get(alice, `/v3/tools/${c}`).expect(200);
  });

  it('another owner’s tools are not_found and stay', async () => {
    const [a] = await toolSet(alice, 'bulk_two');
    for (const key of [bob, aliceElsewhere])
      expect((await bulkDelete(key, { tool_ids: [a] })).body).toEqual({ deleted: 0, not_found: [a] });
    await get(alice, `/v3/tools/${a}`).expect(200);
  });

  it('validates the body: 1–100 string ids → else 422', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.tool_ids'],
      [{ tool_ids: [] }, 'body.tool_ids'],
      [{ tool_ids: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'body.tool_ids'],
      [{ tool_ids: ['ok', 5] }, 'body.tool_ids.1'],
      [{ tool_ids: [''] }, 'body.tool_ids.0'],
      [{ tool_ids: 'openapi-x-y' }, 'body.tool_ids'],
      [['openapi-x-y'], 'body'],
    ];
    for (const [body, loc] of cases) {
      const res = await bulkDelete(alice, body);
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: (string | number)[] }) => d.loc.join('.'))).toContain(loc);
    }
    const full = await bulkDelete(alice, { tool_ids: Array.from({ length: 100 }, (_, i) => `openapi-none-${i}`) });
    expect(full.status).toBe(200);
    expect(full.body.not_found).toHaveLength(100);
  });
});

describe('auth', () => {
  const calls: [string, () => request.Test][] = [
    ['GET /v3/tools/all/user', () => request(t.app).get('/v3/tools/all/user')],
    ['GET /v3/providers/tools/all', () => request(t.app).get('/v3/providers/tools/all')],
    [
      'POST /v3/tools/bulk-delete',
      () =>
        request(t.app)
          .post('/v3/tools/bulk-delete')
          .send({ tool_ids: ['x'] }),
    ],
  ];
  it.each(calls)('%s without a key → 403 API key missing; with an unknown key → 403 Invalid Permission', (_n, call) =>
    expectKeyRequired(call),
  );
});
