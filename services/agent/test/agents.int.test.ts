import request from 'supertest';

import { agentModel } from '../src/agents/agent.model';
import { UNPAGED_LIST_MAX } from '../src/agents/agent.schemas';
import { agentBody, startAgentApp, type AgentTestApp } from './helpers';

let t: AgentTestApp;
let alice: string; // user alice in org acme
let bob: string; // another user, same org
let aliceElsewhere: string; // the same user id in another org

beforeAll(async () => {
  t = await startAgentApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  aliceElsewhere = await t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
});
afterAll(() => t.close());

const create = (key: string, body: object = agentBody()) =>
  request(t.app).post('/v3/agents/').set('x-api-key', key).send(body);

describe('create', () => {
  it('answers 201 with the integer id, its string form and a message', async () => {
    const res = await create(alice);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      agent_id: String(res.body.id),
      message: 'Agent created successfully',
    });
    expect(Number.isSafeInteger(res.body.id)).toBe(true);
  });

  it('stores every spec field, drops unknown ones and ignores server-owned ones', async () => {
    const body = agentBody({
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      features: [{ type: 'RAI', config: { policy_id: 'p1' }, priority: 2 }, { type: 'MEMORY' }],
      agent_goal: 'help',
      agent_context: null,
      max_iterations: 5,
      store_messages: true,
      tool_configs: [{ tool_name: 't' }],
      additional_model_params: { seed: 1 },
      user_id: 'mallory',
      org_id: 'evil',
      id: 999,
      created_at: '2000-01-01T00:00:00Z',
      surprise: 'dropped',
    });
    const { body: created } = await create(alice, body);
    const res = await request(t.app).get(`/v3/agents/${created.id}`).set('x-api-key', alice);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: String(created.id),
      name: 'Support bot',
      system_prompt: 'You are {{role}}.',
      provider_id: 'OpenAI',
      temperature: 0.7,
      top_p: 0.9,
      response_format: body.response_format,
      features: [
        { type: 'RAI', config: { policy_id: 'p1' }, priority: 2 },
        { type: 'MEMORY', config: {}, priority: 0 },
      ],
      agent_goal: 'help',
      agent_context: null,
      max_iterations: 5,
      store_messages: true,
      tool_configs: [{ tool_name: 't' }],
      additional_model_params: { seed: 1 },
      user_id: 'alice',
      org_id: 'acme',
    });
    expect(res.body).not.toHaveProperty('surprise');
    expect(res.body).not.toHaveProperty('_id');
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.body.created_at).not.toBe('2000-01-01T00:00:00.000Z');
  });

  it('keeps free-form JSON exactly as sent: $-keys and $refs of JSON Schemas, dotted keys, nested arrays', async () => {
    const response_format = {
      type: 'json_schema',
      json_schema: {
        name: 'order',
        schema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $defs: { item: { type: 'string' } },
          type: 'object',
          properties: { items: { type: 'array', items: { $ref: '#/$defs/item' } } },
        },
      },
    };
    const tool_configs = [
      {
        tool_name: 't',
        matrix: [
          [1, 2],
          [3, [4]],
        ],
      },
    ];
    const additional_model_params = { 'logit.bias': { '50256': -100 }, $extra: true, stop: [['x']] };
    const features = [{ type: 'RAI', config: { $ref: 'p', 'a.b': [[1]] }, priority: 1 }];
    const res = await create(alice, agentBody({ response_format, tool_configs, additional_model_params, features }));
    expect(res.status).toBe(201);
    const read = await request(t.app).get(`/v3/agents/${res.body.id}`).set('x-api-key', alice);
    expect(read.body).toMatchObject({ response_format, tool_configs, additional_model_params, features });
  });

  it('accepts null for optional strings, as public clients send them', async () => {
    const res = await create(alice, { name: 'n', description: null, system_prompt: null, llm_credential_id: null });
    expect(res.status).toBe(201);
  });

  it('answers without the trailing slash too, with no redirect', async () => {
    const res = await request(t.app).post('/v3/agents').set('x-api-key', alice).send(agentBody());
    expect(res.status).toBe(201);
  });
});

describe('validation', () => {
  const cases: [string, object, (string | number)[], string][] = [
    ['temperature 3', agentBody({ temperature: 3 }), ['body', 'temperature'], 'less_than_equal'],
    ['temperature -0.1', agentBody({ temperature: -0.1 }), ['body', 'temperature'], 'greater_than_equal'],
    ['temperature as a word', agentBody({ temperature: 'hot' }), ['body', 'temperature'], 'float_type'],
    ['top_p 1.5', agentBody({ top_p: 1.5 }), ['body', 'top_p'], 'less_than_equal'],
    ['name missing', { model: 'x' }, ['body', 'name'], 'missing'],
    ['name a number', agentBody({ name: 42 }), ['body', 'name'], 'string_type'],
    ['features not an array', agentBody({ features: 'MEMORY' }), ['body', 'features'], 'list_type'],
    ['feature without type', agentBody({ features: [{ config: {} }] }), ['body', 'features', 0, 'type'], 'missing'],
    [
      'feature priority a string',
      agentBody({ features: [{ type: 'X', priority: 'high' }] }),
      ['body', 'features', 0, 'priority'],
      'float_type',
    ],
    ['response_format a string', agentBody({ response_format: 'json' }), ['body', 'response_format'], 'dict_type'],
    ['tools with a number', agentBody({ tools: [1] }), ['body', 'tools', 0], 'string_type'],
  ];
  it.each(cases)('%s → 422 naming the field', async (_name, body, loc, type) => {
    const res = await create(alice, body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([{ loc, msg: expect.any(String), type }]));
  });

  it('lists every invalid field at once', async () => {
    const res = await create(alice, { name: 7, temperature: 9, top_p: -1 });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.name', 'body.temperature', 'body.top_p']),
    );
  });

  it('invalid JSON → 422 json_invalid', async () => {
    const res = await request(t.app)
      .post('/v3/agents/')
      .set('x-api-key', alice)
      .set('content-type', 'application/json')
      .send('{"name": "x",');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'json_invalid' }] });
  });

  it('a body that is not an object → 422', async () => {
    const res = await create(alice, ['x']);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body']);
  });

  it('a body over the JSON limit → 413', async () => {
    const res = await create(alice, agentBody({ system_prompt: 'x'.repeat(1024 * 1024 + 10) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body too large' });
  });

  it('bad paging → 422 in the query', async () => {
    for (const q of ['limit=0', 'limit=101', 'skip=-1', 'limit=ten']) {
      const res = await request(t.app).get(`/v3/agents/?${q}`).set('x-api-key', alice);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc[0]).toBe('query');
    }
  });
});

describe('list, get, update, delete', () => {
  it('lists only the caller’s agents, newest first, with the total of all matches', async () => {
    const key = await t.dbs.mintKey({ user_id: 'lister', org_id: 'acme' });
    const ids: number[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await create(key, agentBody({ name }))).body.id);
    await create(bob, agentBody({ name: 'not yours' }));
    const res = await request(t.app).get('/v3/agents?limit=2').set('x-api-key', key);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.agents).toEqual([
      { id: String(ids[2]), agent_id: String(ids[2]), name: 'c', description: 'Answers questions' },
      { id: String(ids[1]), agent_id: String(ids[1]), name: 'b', description: 'Answers questions' },
    ]);
    const page2 = await request(t.app).get('/v3/agents/?skip=2&limit=2').set('x-api-key', key);
    expect(page2.body.agents.map((a: { name: string }) => a.name)).toEqual(['a']);
  });

  it('without skip or limit lists every agent up to 1000; with either, one page of at most 100', async () => {
    const owner = { user_id: 'many', org_id: 'acme' };
    const key = await t.dbs.mintKey(owner);
    const Agent = agentModel(t.dbs.conn);
    const start = Date.UTC(2020, 0, 1);
    const docs = Array.from({ length: UNPAGED_LIST_MAX + 1 }, (_, i) => ({
      _id: 1_000_000_000 + i,
      ...owner,
      kind: 'agent' as const,
      name: `agent ${i}`,
      created_at: new Date(start + i * 1000),
    }));
    for (let i = 0; i < docs.length; i += 50) await Agent.insertMany(docs.slice(i, i + 50)); // small batches
    const all = await request(t.app).get('/v3/agents/').set('x-api-key', key);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(UNPAGED_LIST_MAX + 1);
    expect(all.body.agents).toHaveLength(UNPAGED_LIST_MAX);
    const names = all.body.agents.map((a: { name: string }) => a.name);
    expect(names.slice(0, 2)).toEqual([`agent ${UNPAGED_LIST_MAX}`, `agent ${UNPAGED_LIST_MAX - 1}`]); // newest first
    expect(names.at(-1)).toBe('agent 1');
    const page = (q: string) => request(t.app).get(`/v3/agents/?${q}`).set('x-api-key', key);
    expect((await page('limit=100')).body.agents).toHaveLength(100);
    expect((await page('skip=0')).body.agents).toHaveLength(50);
    expect((await page(`skip=${UNPAGED_LIST_MAX}`)).body.agents.map((a: { name: string }) => a.name)).toEqual([
      'agent 0',
    ]);
    expect((await page('limit=101')).status).toBe(422);
  });

  it('list items carry the same description as GET: null stays null, "" stays ""', async () => {
    const key = await t.dbs.mintKey({ user_id: 'describer', org_id: 'acme' });
    const bodies = [
      { name: 'null', description: null },
      { name: 'none' },
      { name: 'empty', description: '' },
      { name: 'text', description: 'Hi' },
    ];
    for (const body of bodies) expect((await create(key, body)).status).toBe(201);
    const list = await request(t.app).get('/v3/agents/').set('x-api-key', key);
    expect(list.body.total).toBe(4);
    for (const item of list.body.agents as { id: string; agent_id: string; description: unknown }[]) {
      expect(Object.keys(item)).toEqual(['id', 'agent_id', 'name', 'description']);
      expect(item.id).toMatch(/^[1-9][0-9]*$/);
      expect(item.agent_id).toBe(item.id);
      const got = await request(t.app).get(`/v3/agents/${item.id}`).set('x-api-key', key);
      expect(item.description).toBe(got.body.description);
    }
    expect(
      Object.fromEntries(list.body.agents.map((a: { name: string; description: unknown }) => [a.name, a.description])),
    ).toEqual({
      null: null,
      none: null,
      empty: '',
      text: 'Hi',
    });
  });

  it('PUT replaces the configuration', async () => {
    const { body } = await create(alice);
    const res = await request(t.app)
      .put(`/v3/agents/${body.id}`)
      .set('x-api-key', alice)
      .send(agentBody({ name: 'Renamed', temperature: 0.1 }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Agent updated successfully' });
    const got = await request(t.app).get(`/v3/agents/${body.id}`).set('x-api-key', alice);
    expect(got.body).toMatchObject({ name: 'Renamed', temperature: 0.1 });
    expect(got.body.updated_at).toEqual(expect.any(String));
  });

  it('PUT validates like create', async () => {
    const { body } = await create(alice);
    const res = await request(t.app)
      .put(`/v3/agents/${body.id}`)
      .set('x-api-key', alice)
      .send(agentBody({ temperature: 3 }));
    expect(res.status).toBe(422);
  });

  it('DELETE answers 204, then the agent is gone', async () => {
    const { body } = await create(alice);
    const del = await request(t.app).delete(`/v3/agents/${body.id}`).set('x-api-key', alice);
    expect(del.status).toBe(204);
    expect((await request(t.app).get(`/v3/agents/${body.id}`).set('x-api-key', alice)).status).toBe(404);
    expect((await request(t.app).delete(`/v3/agents/${body.id}`).set('x-api-key', alice)).status).toBe(404);
  });

  it('an id of the wrong format is not found', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const res = await request(t.app).get(`/v3/agents/${id}`).set('x-api-key', alice);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Agent not found' });
    }
  });
});

describe('single-task templates', () => {
  const st = {
    name: 'Summarizer',
    description: null,
    agent_role: 'Summarize',
    agent_instructions: 'Be brief',
    examples: null,
    features: [],
    tool: '',
    tool_usage_description: '',
    provider_id: 'openai',
    model: 'gpt-4o-mini',
    top_p: 1,
    temperature: 0,
    response_format: { type: 'text' },
    template_type: 'single_task',
    version: '3',
  };

  it('creates (201 {id, message}) and updates ({message})', async () => {
    const res = await request(t.app).post('/v3/agents/template/single-task').set('x-api-key', alice).send(st);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), message: expect.any(String) });
    const upd = await request(t.app)
      .put(`/v3/agents/template/single-task/${res.body.id}`)
      .set('x-api-key', alice)
      .send({ ...st, agent_instructions: 'Be very brief' });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({ message: expect.any(String) });
    const got = await request(t.app).get(`/v3/agents/${res.body.id}`).set('x-api-key', alice);
    expect(got.body).toMatchObject({
      kind: 'single_task',
      agent_role: 'Summarize',
      agent_instructions: 'Be very brief',
      version: '3',
    });
  });

  it('validates temperature and top_p', async () => {
    const res = await request(t.app)
      .post('/v3/agents/template/single-task')
      .set('x-api-key', alice)
      .send({ ...st, temperature: 2.5, top_p: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(2);
  });

  it('PUT merges: fields not sent keep their values, an explicit null clears one, bad values are refused', async () => {
    const created = await request(t.app)
      .post('/v3/agents/template/single-task')
      .set('x-api-key', alice)
      .send({
        ...st,
        description: 'Summaries of long texts',
        agent_goal: 'Short summaries',
        llm_credential_id: '0123456789abcdef01234567',
        features: [{ type: 'MEMORY', config: { max_messages_context_count: 4 }, priority: 0 }],
        additional_model_params: { seed: 7 },
      });
    const path = `/v3/agents/template/single-task/${created.body.id}`;
    const get = async () => (await request(t.app).get(`/v3/agents/${created.body.id}`).set('x-api-key', alice)).body;
    const before = await get();
    const put = (body: object) => request(t.app).put(path).set('x-api-key', alice).send(body);

    expect((await put({ name: 'Renamed' })).status).toBe(200);
    const renamed = await get();
    const { name: _n, updated_at: _u, ...kept } = before;
    expect(renamed).toEqual({ ...kept, name: 'Renamed', updated_at: expect.stringMatching(/Z$/) });
    expect(renamed).toMatchObject({
      agent_role: 'Summarize',
      agent_goal: 'Short summaries',
      description: 'Summaries of long texts',
      llm_credential_id: '0123456789abcdef01234567',
    });

    expect((await put({ description: null, additional_model_params: null, temperature: 0.5 })).status).toBe(200);
    expect(await get()).toEqual({
      ...renamed,
      description: null,
      additional_model_params: null,
      temperature: 0.5,
      updated_at: expect.any(String),
    });
    expect((await put({ response_format: { type: 'json_object' }, features: [] })).status).toBe(200);
    expect(await get()).toMatchObject({ response_format: { type: 'json_object' }, features: [], name: 'Renamed' });
    expect((await put({})).status).toBe(200);
    expect((await get()).agent_role).toBe('Summarize');

    const bad = await put({ name: null, temperature: 3, features: null });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.features',
      'body.name',
      'body.temperature',
    ]);
    expect((await get()).name).toBe('Renamed');
  });

  it('the template update does not apply to a general agent', async () => {
    const { body } = await create(alice);
    const res = await request(t.app).put(`/v3/agents/template/single-task/${body.id}`).set('x-api-key', alice).send(st);
    expect(res.status).toBe(404);
  });
});

describe('isolation between owners', () => {
  let id: number;
  beforeAll(async () => {
    id = (await create(alice)).body.id;
  });
  const routes: [string, (key: string) => request.Test][] = [
    ['GET', (k) => request(t.app).get(`/v3/agents/${id}`).set('x-api-key', k)],
    ['PUT', (k) => request(t.app).put(`/v3/agents/${id}`).set('x-api-key', k).send(agentBody())],
    [
      'PUT single-task',
      (k) => request(t.app).put(`/v3/agents/template/single-task/${id}`).set('x-api-key', k).send({ name: 'x' }),
    ],
    ['DELETE', (k) => request(t.app).delete(`/v3/agents/${id}`).set('x-api-key', k)],
  ];
  it.each(routes)('%s of another user’s agent → 404', async (_m, call) => {
    const res = await call(bob);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Agent not found' });
  });
  it.each(routes)('%s of the same user id in another org → 404', async (_m, call) => {
    const res = await call(aliceElsewhere);
    expect(res.status).toBe(404);
  });
  it('the agent is intact after all those attempts', async () => {
    const res = await request(t.app).get(`/v3/agents/${id}`).set('x-api-key', alice);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Support bot');
  });
  it('lists are per owner', async () => {
    const res = await request(t.app).get('/v3/agents/').set('x-api-key', aliceElsewhere);
    expect(res.body).toEqual({ agents: [], total: 0 });
  });
});

describe('API key', () => {
  const calls: [string, (r: request.Agent) => request.Test][] = [
    ['POST /v3/agents/', (r) => r.post('/v3/agents/').send(agentBody())],
    ['GET /v3/agents/', (r) => r.get('/v3/agents/')],
    ['GET /v3/agents', (r) => r.get('/v3/agents')],
    ['GET /v3/agents/1', (r) => r.get('/v3/agents/1')],
    ['PUT /v3/agents/1', (r) => r.put('/v3/agents/1').send(agentBody())],
    ['DELETE /v3/agents/1', (r) => r.delete('/v3/agents/1')],
    ['POST single-task', (r) => r.post('/v3/agents/template/single-task').send({ name: 'x' })],
    ['PUT single-task', (r) => r.put('/v3/agents/template/single-task/1').send({ name: 'x' })],
    ['POST credentials', (r) => r.post('/v3/providers/credentials').send({})],
    ['GET credentials', (r) => r.get('/v3/providers/credentials')],
    ['GET a credential', (r) => r.get('/v3/providers/credentials/0123456789abcdef01234567')],
    ['DELETE a credential', (r) => r.delete('/v3/providers/credentials/0123456789abcdef01234567')],
  ];
  it.each(calls)('%s without a key → 403 API key missing', async (_n, call) => {
    const res = await call(request.agent(t.app));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'API key missing' });
  });
  it.each(calls)('%s with an invalid key → 403 Invalid Permission', async (_n, call) => {
    for (const key of ['nope', 'sk_' + 'a'.repeat(40)]) {
      const res = await call(request.agent(t.app).set('x-api-key', key));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Invalid Permission' });
    }
  });
  it('a key in the query string is not accepted', async () => {
    const res = await request(t.app).get(`/v3/agents/?x-api-key=${alice}&api_key=${alice}`);
    expect(res.status).toBe(403);
  });
  it('ops endpoints need no key', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json']) {
      expect((await request(t.app).get(path)).status).toBe(200);
    }
    const docs = await request(t.app).get('/docs/');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger');
  });
});
