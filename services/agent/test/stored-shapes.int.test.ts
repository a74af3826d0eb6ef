import request from 'supertest';

import { mongoose } from '@platform/db';

import { startInferenceFixture, type InferenceFixture } from './inference-fixture';

// A database written by earlier versions of this service is read and changed by this one: documents as they were
// stored then (raw inserts), among them the revision counters (`_rev`) that updates used to add, agents' client JSON
// as objects rather than JSON text, fields that did not exist yet, and messages without findings.
const SECRET = 'worker-secret-0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const owner = { user_id: 'elder', org_id: 'acme' };
const DAY = 24 * 3600 * 1000;
let f: InferenceFixture;
let key: string;
let credentialId: string;
const then = new Date(Date.now() - 2 * DAY);
const oid = () => new mongoose.Types.ObjectId();

beforeAll(async () => {
  f = await startInferenceFixture({ internalSecret: SECRET });
  key = await f.t.dbs.mintKey(owner);
  credentialId = await f.credential(key, 'openai');
});
afterAll(() => f.close());

const get = (path: string) => request(f.t.app).get(path).set('x-api-key', key);
const insert = (collection: string, docs: Record<string, unknown>[]) =>
  f.t.dbs.conn.collection(collection).insertMany(docs as never[]);

it('an agent stored with its client JSON as objects and a revision counter reads, lists, changes and runs', async () => {
  const id = 900_001;
  await insert('agents', [
    {
      _id: id,
      ...owner,
      kind: 'agent',
      name: 'Elder',
      description: null,
      system_prompt: 'Old prompt',
      features: [{ type: 'MEMORY', config: { max_messages_context_count: 4 }, priority: 0 }],
      tools: [],
      llm_credential_id: credentialId,
      provider_id: 'openai',
      model: 'gpt-4o-mini',
      response_format: { type: 'text' },
      tool_configs: [{ name: 'x' }],
      additional_model_params: { seed: 3 },
      created_at: then,
      updated_at: then,
      _rev: 5,
    },
  ]);
  const read = await get(`/v3/agents/${id}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({
    id: String(id),
    name: 'Elder',
    features: [{ type: 'MEMORY', config: { max_messages_context_count: 4 }, priority: 0 }],
    response_format: { type: 'text' },
    tool_configs: [{ name: 'x' }],
    additional_model_params: { seed: 3 },
    max_concurrency: null,
    store_messages: null,
    version: null,
  });
  expect(read.body).not.toHaveProperty('_rev');
  expect((await get('/v3/agents')).body.agents).toContainEqual(expect.objectContaining({ id: String(id) }));

  // Its session's messages, stored before findings existed, are its memory and its session's list.
  const session = 'elder-session';
  const turn = { ...owner, agent_id: id, session_id: session, turn_at: then, turn_id: oid() };
  await insert('chat_messages', [
    { ...turn, role: 'user', content: 'before', seq: 0, created_at: then, usage: null, tool_calls_json: null },
    {
      ...turn,
      role: 'assistant',
      content: 'long ago',
      seq: 1,
      created_at: then,
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      provider_id: 'openai',
      model: 'gpt-4o-mini',
      tool_calls_json: null,
    },
  ]);
  const chat = await f.chat(key, { agent_id: String(id), session_id: session, message: 'now' });
  expect(chat.status).toBe(200);
  expect(f.openai.bodies().at(-1)!.messages).toEqual([
    { role: 'system', content: 'Old prompt' },
    { role: 'user', content: 'before' },
    { role: 'assistant', content: 'long ago' },
    { role: 'user', content: 'now' },
  ]);
  const listed = await get(`/v3/inference/sessions/${session}/messages`);
  expect(listed.body.total).toBe(4);
  expect(listed.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'before', usage: null, tool_calls: [] });
  expect(listed.body.messages.at(-2)).toMatchObject({ content: 'long ago', usage: { total_tokens: 3 } });
  expect(listed.body.messages.at(-1)).not.toHaveProperty('findings');

  const put = await request(f.t.app)
    .put(`/v3/agents/${id}`)
    .set('x-api-key', key)
    .send({ name: 'Elder', features: [], tools: [], additional_model_params: { seed: 4 } });
  expect(put.status).toBe(200);
  expect((await get(`/v3/agents/${id}`)).body).toMatchObject({ additional_model_params: { seed: 4 }, features: [] });
});

it('a credential without a type or meta_data, and with a revision counter, reads, lists and updates', async () => {
  const _id = oid();
  await insert('credentials', [
    {
      _id,
      ...owner,
      name: 'Old key',
      provider_id: 'OpenAI',
      api_key_sealed: 'sealed-long-ago',
      base_url: null,
      created_at: then,
      updated_at: null,
      _rev: 2,
    },
  ]);
  const id = _id.toHexString();
  expect((await get(`/v3/providers/credentials/${id}`)).body).toMatchObject({
    name: 'Old key',
    type: 'llm',
    meta_data: {},
    credentials: { api_key: '***', base_url: null },
  });
  const byProvider = await get('/v3/providers/credentials/user/llm/openai');
  expect(byProvider.body.credentials.map((c: { credential_id: string }) => c.credential_id)).toContain(id);
  const put = await request(f.t.app)
    .put(`/v3/providers/credentials/${id}`)
    .set('x-api-key', key)
    .send({ name: 'Renamed old key' });
  expect(put.status).toBe(200);
  expect((await get(`/v3/providers/credentials/${id}`)).body).toMatchObject({ name: 'Renamed old key', type: 'llm' });
});

it('a tool with a revision counter reads and is disabled', async () => {
  const toolId = 'openapi-old-listPets';
  await insert('tools', [
    {
      _id: oid(),
      ...owner,
      tool_id: toolId,
      tool_set_name: 'openapi-old',
      name: 'listPets',
      description: 'Lists pets',
      method: 'get',
      path: '/pets',
      operation_id: 'listPets',
      parameters_json: '{"type":"object","properties":{}}',
      openapi_schema_json: '{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{}}',
      default_headers_json: '{}',
      default_query_params_json: '{}',
      default_body_params_json: '{}',
      endpoint_defaults_json: '{}',
      enabled: true,
      created_at: then,
      updated_at: null,
      _rev: 1,
    },
  ]);
  expect((await get(`/v3/tools/${toolId}`)).body).toMatchObject({ name: 'listPets', enabled: true });
  const off = await request(f.t.app).patch(`/v3/tools/${toolId}?enabled=false`).set('x-api-key', key);
  expect(off.status).toBe(200);
  expect((await get(`/v3/tools/${toolId}`)).body).toMatchObject({ enabled: false, updated_at: expect.any(String) });
});

it('a task claimed under revision counters reads and ends; an expired one is gone', async () => {
  const task = (id: string, created: Date) => ({
    _id: id,
    ...owner,
    status: 'running',
    input_json: JSON.stringify({ agent_id: '1', session_id: 's', message: 'm' }),
    result_json: null,
    error: null,
    attempts: 1,
    created_at: created,
    updated_at: created,
    expires_at: new Date(created.getTime() + 7 * DAY),
    _rev: 3,
  });
  const live = '3d0c4c36-8f6e-4a4e-9b9b-0f6f1c1c0001';
  const expired = '3d0c4c36-8f6e-4a4e-9b9b-0f6f1c1c0002';
  await insert('inference_tasks', [task(live, then), task(expired, new Date(Date.now() - 8 * DAY))]);
  expect((await get(`/v3/inference/task/${live}`)).body).toMatchObject({ task_id: live, status: 'running' });
  const internal = {
    'x-internal-secret': SECRET,
    'x-on-behalf-of-user': owner.user_id,
    'x-on-behalf-of-org': owner.org_id,
  };
  const fail = (id: string) =>
    request(f.t.app).post(`/v3/inference/task/${id}/fail`).set(internal).send({ error: 'gave up' });
  expect((await fail(live)).body).toEqual({ task_id: live, status: 'failed' });
  expect((await get(`/v3/inference/task/${live}`)).body).toMatchObject({ status: 'failed', error: 'gave up' });
  expect((await get(`/v3/inference/task/${expired}`)).status).toBe(404);
  expect((await fail(expired)).status).toBe(404);
});
