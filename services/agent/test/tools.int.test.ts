import request from 'supertest';

import {
  startFakeLlm,
  startLocalServer,
  startPetStore,
  type FakeLlm,
  type LocalServer,
  type PetStore,
} from '@platform/testing';

import { MAX_OPERATIONS } from '../src/tools/openapi-import';
import { startAgentApp, type AgentTestApp } from './helpers';
import { openApi30, openApi31, swagger20 } from './pet-store-docs';

let t: AgentTestApp;
let store: PetStore;
let llm: FakeLlm;
let alice: string;
let bob: string;

beforeAll(async () => {
  store = await startPetStore();
  llm = await startFakeLlm('openai');
  t = await startAgentApp({
    allowHosts: `127.0.0.1:${store.port},127.0.0.1:${llm.port}`,
    toolEnhancer: { baseUrl: llm.baseUrl, model: 'enhancer-model' },
  });
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
});
afterAll(async () => {
  await Promise.all([store.close(), llm.close()]);
  await t.close();
});

const post = (key: string, body: unknown) =>
  request(t.app)
    .post('/v3/tools/')
    .set('x-api-key', key)
    .send(body as object);
const read = (key: string, id: string) => request(t.app).get(`/v3/tools/openapi/${id}`).set('x-api-key', key);

describe('import', () => {
  it.each([
    ['OpenAPI 3.0', 'v30', openApi30],
    ['OpenAPI 3.1', 'v31', openApi31],
    ['Swagger 2.0', 'v20', swagger20],
  ])(
    '%s: one tool per operation, ids openapi-<set>-<operationId>, arguments as JSON schema',
    async (_label, set, doc) => {
      const res = await post(alice, { tool_set_name: set, openapi_schema: doc(store.url) });
      expect(res.status).toBe(201);
      expect(res.body.tool_ids).toEqual(
        expect.arrayContaining([`openapi-${set}-listPets`, `openapi-${set}-createPet`, `openapi-${set}-getPet`]),
      );

      const info = await read(alice, `openapi-${set}-createPet`);
      expect(info.status).toBe(200);
      expect(info.body).toMatchObject({
        id: `openapi-${set}-createPet`,
        name: `openapi-${set}`,
        openapi_schema: doc(store.url),
        enabled: true,
        method: 'POST',
        path: '/pets',
      });
      expect(Object.keys(info.body.paths)).toEqual(['/pets']);
      expect(Object.keys(info.body.paths['/pets'])).toEqual(['post']);
      // the $ref is resolved into the tool's own schema
      expect(info.body.parameters.required).toEqual(['body']);
      expect(info.body.parameters.properties.body.required).toEqual(['name']);
      expect(info.body.parameters.properties.body.properties.name.type).toBe('string');

      const get = await read(alice, `openapi-${set}-getPet`);
      expect(get.body.parameters.properties.path_params).toMatchObject({
        required: ['petId'],
        properties: { petId: { type: 'integer' } },
      });
      const list = await read(alice, `openapi-${set}-listPets`);
      expect(list.body.parameters.properties.query_params.properties.limit.type).toBe('integer');
      expect(list.body.parameters.required).toEqual([]);
    },
  );

  it('names an operation without operationId by method and path', async () => {
    const res = await post(alice, { tool_set_name: 'nameless', openapi_schema: openApi30(store.url) });
    expect(res.body.tool_ids).toContain('openapi-nameless-delete_pets_petId');
    expect(res.body.tool_ids).toHaveLength(6);
  });

  it('refuses a second set of the same name with 409, but another owner may use the name', async () => {
    await post(alice, { tool_set_name: 'dup', openapi_schema: openApi30(store.url) }).expect(201);
    const again = await post(alice, { tool_set_name: 'dup', openapi_schema: openApi31(store.url) });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: 'Tool set openapi-dup already exists' });
    await post(bob, { tool_set_name: 'dup', openapi_schema: openApi30(store.url) }).expect(201);
  });

  refusesBadImports();
});

function refusesBadImports(): void {
  it('refuses an external $ref with 422 and never fetches it', async () => {
    const target: LocalServer = await startLocalServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"object"}'),
    );
    const doc = openApi30(store.url);
    (doc.components.schemas as Record<string, unknown>).NewPet = { $ref: `${target.url}/schemas.json#/NewPet` };
    const res = await post(alice, { tool_set_name: 'external', openapi_schema: doc });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body', 'openapi_schema', 'components', 'schemas', 'NewPet', '$ref'],
      type: 'external_ref',
    });
    const fileRef = await post(alice, {
      tool_set_name: 'external',
      openapi_schema: { ...doc, components: { schemas: { NewPet: { $ref: './pet.yaml' } } } },
    });
    expect(fileRef.status).toBe(422);
    expect(target.connections).toBe(0);
    expect(target.requests).toHaveLength(0);
    await target.close();
    await read(alice, 'openapi-external-listPets').expect(404);
  });

  it.each([
    [
      'a tool_set_name outside ^[a-z0-9_]+$',
      { tool_set_name: 'Pets-1', openapi_schema: {} },
      ['body', 'tool_set_name'],
    ],
    ['a missing openapi_schema', { tool_set_name: 'x' }, ['body', 'openapi_schema']],
    [
      'a document that is not OpenAPI',
      { tool_set_name: 'x', openapi_schema: { hello: 'world' } },
      ['body', 'openapi_schema'],
    ],
    [
      'a document without operations',
      { tool_set_name: 'x', openapi_schema: { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} } },
      ['body', 'openapi_schema', 'paths'],
    ],
    [
      'a non-http base_url',
      { tool_set_name: 'x', openapi_schema: {}, endpoint_defaults: { base_url: 'file:///etc/passwd' } },
      ['body', 'endpoint_defaults', 'base_url'],
    ],
  ])('answers 422 for %s', async (_label, body, loc) => {
    const res = await post(alice, body);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
  });

  it(`refuses a document with more than ${MAX_OPERATIONS} operations`, async () => {
    const paths = Object.fromEntries(
      Array.from({ length: MAX_OPERATIONS + 1 }, (_, i) => [
        `/r${i}`,
        { get: { responses: { '200': { description: 'ok' } } } },
      ]),
    );
    const res = await post(alice, {
      tool_set_name: 'huge',
      openapi_schema: { openapi: '3.0.3', info: { title: 't', version: '1' }, paths },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('too_long');
  });
}

describe('read, list, update, enable, delete', () => {
  beforeAll(async () => {
    await post(alice, {
      tool_set_name: 'crud',
      openapi_schema: openApi30(store.url),
      default_headers: { 'X-Api-Token': 'tok-secret-123' },
      default_query_params: { limit: 2 },
    }).expect(201);
  });

  it('masks default header values on read and never stores them in clear', async () => {
    const res = await read(alice, 'openapi-crud-listPets');
    expect(res.body.default_headers).toEqual({ 'X-Api-Token': '***' });
    expect(res.body.default_query_params).toEqual({ limit: 2 });
    const raw = await t.dbs.conn.collection('tools').findOne({ tool_id: 'openapi-crud-listPets' });
    expect(JSON.stringify(raw)).not.toContain('tok-secret-123');
  });

  it("lists the caller's tools newest first with the total; another owner sees none of them", async () => {
    const page = await request(t.app).get('/v3/tools?limit=2').set('x-api-key', alice);
    expect(page.status).toBe(200);
    expect(page.body.tools).toHaveLength(2);
    expect(page.body.total).toBeGreaterThan(6);
    expect(page.body.tools[0]).toMatchObject({ tool_set_name: 'crud', enabled: true });
    const bobs = await request(t.app).get('/v3/tools/').set('x-api-key', bob);
    expect(bobs.body.tools.every((x: { id: string }) => !x.id.startsWith('openapi-crud'))).toBe(true);
    await read(bob, 'openapi-crud-listPets').expect(404, { detail: 'Tool not found' });
  });

  it('updates the given fields; a masked header value keeps the stored one', async () => {
    const res = await request(t.app)
      .put('/v3/tools/openapi-crud-listPets')
      .set('x-api-key', alice)
      .send({
        description: 'Lists the pets',
        default_headers: { 'X-Api-Token': '***', 'X-Extra': 'e' },
        endpoint_defaults: { base_url: store.url },
      });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Tool updated successfully' });
    const info = await read(alice, 'openapi-crud-listPets');
    expect(info.body).toMatchObject({
      description: 'Lists the pets',
      default_headers: { 'X-Api-Token': '***', 'X-Extra': '***' },
      endpoint_defaults: { base_url: store.url },
    });
    expect(info.body.updated_at).not.toBeNull();
    await request(t.app)
      .post('/v3/tools/openapi/openapi-crud-listPets/execute?path=/pets&method=GET')
      .set('x-api-key', alice)
      .expect(200);
    expect(store.requests.at(-1)!.headers['x-api-token']).toBe('tok-secret-123');
  });

  it('takes a new document for the same operation, and refuses one without it (422)', async () => {
    const doc = openApi30(store.url);
    doc.paths['/pets'].get.parameters.push({
      name: 'owner',
      in: 'query',
      required: true,
      schema: { type: 'string' },
    } as never);
    await request(t.app)
      .put('/v3/tools/openapi-crud-listPets')
      .set('x-api-key', alice)
      .send({ openapi_schema: doc })
      .expect(200);
    const info = await read(alice, 'openapi-crud-listPets');
    expect(info.body.parameters.properties.query_params.required).toEqual(['owner']);
    const without = { ...doc, paths: { '/other': doc.paths['/hang'] } };
    const res = await request(t.app)
      .put('/v3/tools/openapi-crud-listPets')
      .set('x-api-key', alice)
      .send({ openapi_schema: without });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('operation_missing');
    await request(t.app)
      .put('/v3/tools/openapi-crud-nothing')
      .set('x-api-key', alice)
      .send({ description: 'x' })
      .expect(404);
  });

  it('enables and disables with ?enabled; a missing or non-boolean enabled is 422', async () => {
    const off = await request(t.app).patch('/v3/tools/openapi-crud-getPet?enabled=false').set('x-api-key', alice);
    expect(off.status).toBe(200);
    expect(off.body.message).toMatch(/disabled/);
    expect((await read(alice, 'openapi-crud-getPet')).body.enabled).toBe(false);
    await request(t.app).patch('/v3/tools/openapi-crud-getPet?enabled=true').set('x-api-key', alice).expect(200);
    expect((await read(alice, 'openapi-crud-getPet')).body.enabled).toBe(true);
    const missing = await request(t.app).patch('/v3/tools/openapi-crud-getPet').set('x-api-key', alice);
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['query', 'enabled'], type: 'missing' });
    const bad = await request(t.app).patch('/v3/tools/openapi-crud-getPet?enabled=maybe').set('x-api-key', alice);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'enabled'], type: 'bool_type' });
    await request(t.app).patch('/v3/tools/openapi-crud-getPet?enabled=false').set('x-api-key', bob).expect(404);
  });

  it('deletes with 204; then 404', async () => {
    await request(t.app).delete('/v3/tools/openapi-crud-hang').set('x-api-key', bob).expect(404);
    await request(t.app).delete('/v3/tools/openapi-crud-hang').set('x-api-key', alice).expect(204);
    await read(alice, 'openapi-crud-hang').expect(404);
    await request(t.app).delete('/v3/tools/openapi-crud-hang').set('x-api-key', alice).expect(404);
  });

  it('requires an API key', async () => {
    await request(t.app).get('/v3/tools/').expect(403, { detail: 'API key missing' });
  });
});

describe('enhance_descriptions', () => {
  it('asks the OpenAI-protocol endpoint with the given key and stores its descriptions', async () => {
    const better = { listPets: 'Lists pets, optionally by tag.', getPet: 'Fetches one pet by its numeric id.' };
    llm.script({ body: { choices: [{ message: { role: 'assistant', content: JSON.stringify(better) } }] } });
    const res = await post(alice, {
      tool_set_name: 'enhanced',
      openapi_schema: openApi31(store.url),
      enhance_descriptions: true,
      openai_api_key: 'sk-enhance-key-1',
    });
    expect(res.status).toBe(201);
    const sent = llm.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-enhance-key-1');
    expect((sent.json as { model: string }).model).toBe('enhancer-model');
    expect((await read(alice, 'openapi-enhanced-getPet')).body.description).toBe(better.getPet);
    expect((await read(alice, 'openapi-enhanced-listPets')).body.description).toBe(better.listPets);
    // left out by the model: the original stays
    expect((await read(alice, 'openapi-enhanced-createPet')).body.description).toBe('POST /pets');
  });

  it('keeps the original descriptions when the endpoint fails, and still creates the set', async () => {
    llm.script({ status: 500, body: { error: { message: 'boom' } } });
    const before = llm.requests.length;
    const res = await post(alice, {
      tool_set_name: 'unenhanced',
      openapi_schema: openApi30(store.url),
      enhance_descriptions: true,
      openai_api_key: 'sk-enhance-key-2',
    });
    expect(res.status).toBe(201);
    expect(llm.requests.length).toBe(before + 1);
    expect((await read(alice, 'openapi-unenhanced-listPets')).body.description).toBe('List pets');
    expect(t.lines.some((l) => l.includes('tool description enhancement failed'))).toBe(true);
    expect(t.lines.some((l) => l.includes('sk-enhance-key-2'))).toBe(false);
  });
});
