/** The agents API on the real app and FerretDB: create, validation, list, get, update and delete. */
import request from 'supertest';

import { agentModel } from '../src/agents/agent.model';
import { UNPAGED_LIST_MAX } from '../src/agents/agent.schemas';
import { alice, bob, create, t, useAgentsApp } from './agents-fixture';
import { agentBody } from './helpers';

useAgentsApp();

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
