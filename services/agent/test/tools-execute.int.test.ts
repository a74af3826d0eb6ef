import request from 'supertest';

import { startLocalServer, startPetStore, type LocalServer, type PetStore } from '@platform/testing';

import { MAX_TOOL_RESPONSE_BYTES } from '../src/tools/tool-executor';
import { startAgentApp, type AgentTestApp } from './helpers';
import { openApi30, openApi31, swagger20 } from './pet-store-docs';

/**
 * Below the 30 s default, so that the hang test waits this long instead; long enough for a 5 MiB answer on a loaded
 * machine (2 s was not, once, in a full CI run on two busy cores), well within the test's own 30 s.
 */
const TOOL_TIMEOUT_MS = 8_000;

let t: AgentTestApp;
let store: PetStore;
let forbidden: LocalServer;
let alice: string;

beforeAll(async () => {
  store = await startPetStore();
  // a local server the allow-list does not name: what an SSRF would reach
  forbidden = await startLocalServer((_req, res) => res.writeHead(200).end('internal secrets'));
  t = await startAgentApp({ allowHosts: `127.0.0.1:${store.port}`, toolTimeoutMs: TOOL_TIMEOUT_MS });
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  for (const [set, doc] of [
    ['v30', openApi30],
    ['v31', openApi31],
    ['v20', swagger20],
  ] as const) {
    const res = await request(t.app)
      .post('/v3/tools/')
      .set('x-api-key', alice)
      .send({
        tool_set_name: set,
        openapi_schema: doc(store.url),
        default_headers: { Authorization: 'Bearer pet-token' },
        default_body_params: { tag: 'default-tag' },
      });
    if (res.status !== 201) throw new Error(`import failed: ${res.status} ${res.text}`);
  }
});
afterAll(async () => {
  await Promise.all([store.close(), forbidden.close()]);
  await t.close();
});

const execute = (id: string, path: string, method: string, body?: unknown) => {
  const req = request(t.app).post(`/v3/tools/openapi/${id}/execute`).query({ path, method }).set('x-api-key', alice);
  return body === undefined ? req : req.send(body as object);
};

describe.each(['v30', 'v31', 'v20'])('execute (%s)', (set) => {
  it('GET with a path value and a query string → {status_code, headers, data}', async () => {
    const res = await execute(`openapi-${set}-getPet`, '/pets/2', 'GET');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      headers: expect.objectContaining({ 'x-pet-store': '1' }),
      data: { id: 2, name: 'Tom', tag: 'cat' },
    });
    const list = await execute(`openapi-${set}-listPets`, '/pets?tag=dog&limit=1', 'get');
    expect(list.body.data).toEqual([{ id: 1, name: 'Rex', tag: 'dog' }]);
    expect(store.requests.at(-1)!.url).toBe('/pets?tag=dog&limit=1');
  });

  it('POST with a JSON body: default body params under the request’s, default headers sent', async () => {
    const res = await execute(`openapi-${set}-createPet`, '/pets', 'POST', { name: `Nemo-${set}` });
    expect(res.status).toBe(200);
    expect(res.body.status_code).toBe(201);
    expect(res.body.data).toMatchObject({ name: `Nemo-${set}`, tag: 'default-tag' });
    const sent = store.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer pet-token');
    expect(sent.headers['content-type']).toMatch(/^application\/json/);
    expect(sent.json).toEqual({ name: `Nemo-${set}`, tag: 'default-tag' });
    await execute(`openapi-${set}-createPet`, '/pets', 'POST', { name: 'Own', tag: 'own-tag' });
    expect(store.requests.at(-1)!.json).toEqual({ name: 'Own', tag: 'own-tag' });
  });

  it('returns a remote 404 as data with 200', async () => {
    const res = await execute(`openapi-${set}-getPet`, '/pets/999', 'GET');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 404, data: { message: 'Pet not found' } });
  });

  it('answers 422 for a path or method that is not in the document', async () => {
    const res = await execute(`openapi-${set}-getPet`, '/owners/1', 'GET');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'path'], type: 'path_not_in_schema' });
    await execute(`openapi-${set}-getPet`, '/pets/1', 'PATCH').expect(422);
  });
});

describe('execute: failures and limits', () => {
  it('a remote that hangs → 502 after the tool timeout', async () => {
    const started = Date.now();
    const res = await execute('openapi-v30-hang', '/hang', 'GET');
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: `Tool API error: timeout after ${TOOL_TIMEOUT_MS} ms` });
    expect(Date.now() - started).toBeGreaterThanOrEqual(TOOL_TIMEOUT_MS - 50);
  });

  it(`a response over ${MAX_TOOL_RESPONSE_BYTES} bytes → 502; one at the cap passes`, async () => {
    const at = await execute('openapi-v30-big', `/big?bytes=${MAX_TOOL_RESPONSE_BYTES}`, 'GET');
    expect(at.status).toBe(200);
    expect((at.body.data as string).length).toBe(MAX_TOOL_RESPONSE_BYTES);
    const over = await execute('openapi-v30-big', `/big?bytes=${MAX_TOOL_RESPONSE_BYTES + 1}`, 'GET');
    expect(over.status).toBe(502);
    expect(over.body.detail).toBe(`Tool API error: response larger than ${MAX_TOOL_RESPONSE_BYTES} bytes`);
  });

  it('a disabled tool → 409 and nothing is sent', async () => {
    await request(t.app).patch('/v3/tools/openapi-v31-getPet?enabled=false').set('x-api-key', alice).expect(200);
    const before = store.requests.length;
    const res = await execute('openapi-v31-getPet', '/pets/1', 'GET');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'Tool is disabled' });
    expect(store.requests.length).toBe(before);
    await request(t.app).patch('/v3/tools/openapi-v31-getPet?enabled=true').set('x-api-key', alice).expect(200);
  });

  it('an SSRF target (loopback, not allow-listed) is refused with 502 and never connected to', async () => {
    const viaDefaults = await request(t.app)
      .post('/v3/tools/')
      .set('x-api-key', alice)
      .send({ tool_set_name: 'ssrf', openapi_schema: openApi30(forbidden.url) });
    expect(viaDefaults.status).toBe(201);
    const res = await execute('openapi-ssrf-getPet', '/pets/1', 'GET');
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/^Tool API error: refused/);
    await request(t.app)
      .put('/v3/tools/openapi-ssrf-listPets')
      .set('x-api-key', alice)
      .send({ endpoint_defaults: { base_url: `http://169.254.169.254:${forbidden.port}` } })
      .expect(200);
    expect((await execute('openapi-ssrf-listPets', '/pets', 'GET')).status).toBe(502);
    expect(forbidden.connections).toBe(0);
  });

  it('endpoint_defaults.base_url wins over the document’s server', async () => {
    await request(t.app)
      .post('/v3/tools/')
      .set('x-api-key', alice)
      .send({
        tool_set_name: 'rebased',
        openapi_schema: openApi30('http://api.example.invalid'),
        endpoint_defaults: { base_url: store.url },
      })
      .expect(201);
    const res = await execute('openapi-rebased-getPet', '/pets/3', 'GET');
    expect(res.body).toMatchObject({ status_code: 200, data: { name: 'Fido' } });
  });

  it('a document with a relative server and no base_url → 422 naming endpoint_defaults.base_url', async () => {
    const doc = { ...openApi30(store.url), servers: [{ url: '/api' }] };
    await request(t.app)
      .post('/v3/tools/')
      .set('x-api-key', alice)
      .send({ tool_set_name: 'relative', openapi_schema: doc })
      .expect(201);
    const res = await execute('openapi-relative-getPet', '/pets/1', 'GET');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'base_url_missing' });
    expect(res.body.detail[0].msg).toMatch(/endpoint_defaults\.base_url/);
  });

  it.each([
    ['no path', { method: 'GET' }, ['query', 'path']],
    ['a path without a leading slash', { path: 'pets', method: 'GET' }, ['query', 'path']],
    ['an unknown method', { path: '/pets', method: 'TRACE' }, ['query', 'method']],
  ])('answers 422 for %s', async (_label, query, loc) => {
    const res = await request(t.app)
      .post('/v3/tools/openapi/openapi-v30-listPets/execute')
      .query(query)
      .set('x-api-key', alice);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  it('an unknown tool → 404', async () => {
    await execute('openapi-nothing-here', '/pets', 'GET').expect(404, { detail: 'Tool not found' });
  });
});
