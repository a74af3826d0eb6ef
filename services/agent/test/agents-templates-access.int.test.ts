/** The agents API on the real app and FerretDB: single-task templates, isolation between owners, the API key. */
import request from 'supertest';

import { alice, aliceElsewhere, bob, create, t, useAgentsApp } from './agents-fixture';
import { agentBody } from './helpers';

useAgentsApp();

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
