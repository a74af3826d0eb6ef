/**
 * Contract §7: a credential's provider-specific keys (a Qdrant `url`, AWS keys, ...) beside api_key and base_url are
 * kept: the ones that name where or what in clear, returned as sent; every other one sealed like the api key and read
 * as "***", never returned, never stored in plaintext. PUT merges them key by key.
 */
import request from 'supertest';

import {
  CREDENTIAL_KEY,
  MAX_CREDENTIAL_KEYS,
  MAX_CREDENTIAL_VALUE_CHARS,
  MAX_CREDENTIALS_CHARS,
} from '../src/credentials/credential.schemas';
import { startAgentApp, type AgentTestApp } from './helpers';

let t: AgentTestApp;
let alice: string;
let bob: string;
const QDRANT_KEY = 'qdrant-secret-7d1e9a4c2b8f';
const AWS_SECRET = 'aws-secret-3b6f0c9e1a7d';
const INTERNAL = 'keys-secret-0a1b2c3d4e5f60718293a4b5c6d7e8f9';

beforeAll(async () => {
  t = await startAgentApp({ internalSecret: INTERNAL });
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
});
afterAll(() => t.close());

const qdrant = {
  name: 'Vectors',
  provider_id: 'qdrant',
  type: 'vector_store',
  credentials: { api_key: QDRANT_KEY, url: 'https://cluster-1.cloud.qdrant.io:6333' },
  meta_data: {},
};
const post = (key: string, body: object) =>
  request(t.app).post('/v3/providers/credentials').set('x-api-key', key).send(body);
const get = (key: string, id: string) => request(t.app).get(`/v3/providers/credentials/${id}`).set('x-api-key', key);
const put = (key: string, id: string, body: object) =>
  request(t.app).put(`/v3/providers/credentials/${id}`).set('x-api-key', key).send(body);
const create = async (body: object) => {
  const res = await post(alice, body);
  expect(res.status).toBe(201);
  return res.body.credential_id as string;
};

it('a Qdrant credential keeps its url: returned by GET and the lists, the key masked', async () => {
  const id = await create(qdrant);
  const read = await get(alice, id);
  expect(read.status).toBe(200);
  expect(read.body.credentials).toEqual({
    api_key: '***',
    base_url: null,
    url: 'https://cluster-1.cloud.qdrant.io:6333',
  });
  const byType = await request(t.app).get('/v3/providers/credentials/type/vector_store').set('x-api-key', alice);
  expect(byType.body.credentials).toContainEqual(
    expect.objectContaining({ credential_id: id, credentials: read.body.credentials }),
  );
  const byProvider = await request(t.app)
    .get('/v3/providers/credentials/user/vector_store/QDRANT')
    .set('x-api-key', alice);
  expect(byProvider.body.credentials.map((c: { credential_id: string }) => c.credential_id)).toContain(id);
  expect((await get(bob, id)).status).toBe(404);
});

it('other provider keys are sealed: read as "***", never in an answer, a log line or the stored document', async () => {
  // What the hosted product's SDK sends for an AWS memory credential (with an api_key, which ours require).
  const id = await create({
    name: 'AWS memory',
    provider_id: 'aws-agentcore',
    type: 'memory',
    credentials: {
      api_key: 'unused',
      aws_access_key_id: 'AKIAEXAMPLE',
      aws_secret_access_key: AWS_SECRET,
      region: 'us-east-1',
      host: null,
    },
  });
  const read = await get(alice, id);
  expect(read.body.credentials).toEqual({
    api_key: '***',
    base_url: null,
    aws_access_key_id: '***',
    aws_secret_access_key: '***',
    region: 'us-east-1',
    host: null,
  });
  const list = await request(t.app).get('/v3/providers/credentials').set('x-api-key', alice);
  expect(JSON.stringify(list.body)).not.toContain(AWS_SECRET);
  expect(t.lines.join('\n')).not.toContain(AWS_SECRET);
  const doc = JSON.stringify(await t.dbs.conn.collection('credentials').findOne({ name: 'AWS memory' }));
  expect(doc).not.toContain(AWS_SECRET);
  expect(doc).not.toContain('AKIAEXAMPLE');
  expect(doc).toContain('us-east-1');
});

it('PUT merges them key by key: "***" or a missing key keeps, a value replaces, null clears, a new key is added', async () => {
  const id = await create({
    ...qdrant,
    credentials: { ...qdrant.credentials, collection_name: 'docs', password: 'pw-one' },
  });
  // Sent back as read: nothing changes.
  const read = (await get(alice, id)).body as { credentials: Record<string, unknown> };
  expect((await put(alice, id, { credentials: read.credentials })).status).toBe(200);
  expect((await get(alice, id)).body.credentials).toEqual(read.credentials);

  const changed = await put(alice, id, {
    credentials: { url: 'https://cluster-2.cloud.qdrant.io', password: 'pw-two', collection_name: null, port: '6334' },
  });
  expect(changed.status).toBe(200);
  expect((await get(alice, id)).body.credentials).toEqual({
    api_key: '***',
    base_url: null,
    url: 'https://cluster-2.cloud.qdrant.io',
    password: '***',
    collection_name: null,
    port: '6334',
  });
  const doc = JSON.stringify(
    await t.dbs.conn.collection('credentials').findOne({ name: 'Vectors', 'extra.port': '6334' }),
  );
  expect(doc).not.toContain('pw-two');
  expect(doc).not.toContain('pw-one');

  // A secret cleared with null reads as null, and sealed again when sent again.
  expect((await put(alice, id, { credentials: { password: null } })).status).toBe(200);
  expect((await get(alice, id)).body.credentials.password).toBeNull();
  expect((await put(alice, id, { credentials: { password: 'pw-three' } })).status).toBe(200);
  expect((await get(alice, id)).body.credentials.password).toBe('***');
  // A PUT of other fields keeps them all.
  expect((await put(alice, id, { name: 'Renamed', meta_data: { team: 'search' } })).status).toBe(200);
  expect((await get(alice, id)).body.credentials).toMatchObject({
    url: 'https://cluster-2.cloud.qdrant.io',
    port: '6334',
  });
});

it('the open route (inference) still gets only the api key and base_url', async () => {
  const id = await create(qdrant);
  const opened = await request(t.app)
    .post(`/v3/providers/credentials/${id}/open`)
    .set('x-internal-secret', INTERNAL)
    .set('x-on-behalf-of-user', 'alice')
    .set('x-on-behalf-of-org', 'acme');
  expect(opened.status).toBe(200);
  expect(opened.body).toEqual({ credential_id: id, provider_id: 'qdrant', api_key: QDRANT_KEY, base_url: null });
});

it('a credential of provider-specific keys only (an AWS memory credential) needs no api_key: stored, read with api_key null, opened with none, refused as an agent’s model credential', async () => {
  const aws = {
    name: 'Memory store',
    provider_id: 'aws',
    type: 'memory',
    credentials: { aws_access_key_id: 'AKIAEXAMPLE0001', aws_secret_access_key: AWS_SECRET, region: 'eu-west-1' },
    meta_data: {},
  };
  const id = await create(aws);
  const read = await get(alice, id);
  expect(read.body.credentials).toEqual(
    expect.objectContaining({ api_key: null, base_url: null, aws_secret_access_key: '***' }),
  );
  expect(JSON.stringify(read.body)).not.toContain(AWS_SECRET);
  const opened = await request(t.app)
    .post(`/v3/providers/credentials/${id}/open`)
    .set('x-internal-secret', INTERNAL)
    .set('x-on-behalf-of-user', 'alice')
    .set('x-on-behalf-of-org', 'acme');
  expect(opened.body).toEqual({ credential_id: id, provider_id: 'aws', api_key: null, base_url: null });
  // A later PUT may give it a key; "***" and a missing key keep what is stored.
  expect((await put(alice, id, { credentials: { api_key: '***', region: 'eu-west-2' } })).status).toBe(200);
  expect((await get(alice, id)).body.credentials).toEqual(
    expect.objectContaining({ api_key: null, region: 'eu-west-2' }),
  );
  // As the model credential of an agent it cannot serve: 422 before any provider is asked.
  const agent = await request(t.app)
    .post('/v3/agents/')
    .set('x-api-key', alice)
    .send({ name: 'a', provider_id: 'openai', model: 'gpt-4o-mini', llm_credential_id: id, system_prompt: 'x' });
  expect(agent.status).toBe(201);
  const chat = await request(t.app)
    .post('/v3/inference/chat/')
    .set('x-api-key', alice)
    .send({ agent_id: String(agent.body.agent_id), session_id: 's', message: 'hi', user_id: 'alice' });
  expect([chat.status, chat.body.detail[0].type]).toEqual([422, 'credential_api_key_missing']);
  // Without any provider-specific key, api_key stays required.
  const bare = await post(alice, { ...aws, credentials: { base_url: 'https://example.com' } });
  expect([bare.status, bare.body.detail[0].loc]).toEqual([422, ['body', 'credentials', 'api_key']]);
});

describe('limits (422 at the field, nothing stored)', () => {
  const refused = async (credentials: Record<string, unknown>, loc: (string | number)[], type: string) => {
    const res = await post(alice, { ...qdrant, name: 'Refused', credentials });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'credentials', ...loc], type }));
  };

  it(`more than ${MAX_CREDENTIAL_KEYS} keys in all`, async () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect(
      (await post(alice, { ...qdrant, credentials: { api_key: 'a', ...keys(MAX_CREDENTIAL_KEYS - 1) } })).status,
    ).toBe(201);
    await refused({ api_key: 'a', ...keys(MAX_CREDENTIAL_KEYS) }, [], 'object_max');
  });

  it(`a value longer than ${MAX_CREDENTIAL_VALUE_CHARS} characters, or not a string`, async () => {
    const long = 'x'.repeat(MAX_CREDENTIAL_VALUE_CHARS);
    expect((await post(alice, { ...qdrant, credentials: { api_key: 'a', url: long } })).status).toBe(201);
    await refused({ api_key: 'a', url: `${long}x` }, ['url'], 'credentials_value');
    await refused({ api_key: 'a', port: 6333 }, ['port'], 'credentials_value');
    await refused({ api_key: 'a', tls: { ca: 'x' } }, ['tls'], 'credentials_value');
  });

  it(`more than ${MAX_CREDENTIALS_CHARS} characters as JSON in all`, async () => {
    const big = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [`k${i}`, 'x'.repeat(MAX_CREDENTIAL_VALUE_CHARS)]),
    );
    await refused({ api_key: 'a', ...big }, [], 'json_too_long');
    const put422 = await put(alice, await create(qdrant), { credentials: big });
    expect(put422.status).toBe(422);
  });

  it(`keys whose name does not match ${CREDENTIAL_KEY.source} are dropped like any unknown field`, async () => {
    const id = await create({ ...qdrant, credentials: { ...qdrant.credentials, $where: 'x', 'a.b': 'y', _x: 'z' } });
    expect(Object.keys((await get(alice, id)).body.credentials).sort()).toEqual(['api_key', 'base_url', 'url']);
  });
});
