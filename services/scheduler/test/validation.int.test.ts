import request from 'supertest';

import { startSchedulerApp, type SchedulerTestApp } from './helpers';

let t: SchedulerTestApp;
let alice: string;
let agentId: string;
let webhookId: string;

beforeAll(async () => {
  t = await startSchedulerApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  agentId = await t.createAgent(alice);
  webhookId = (await request(t.app).post('/agent-webhooks/').set('x-api-key', alice).send({ agent_id: agentId })).body
    .id;
}, 60_000);
afterAll(() => t.close(), 30_000);

const expect422 = (res: request.Response, loc: (string | number)[], type: string) => {
  expect(res.status).toBe(422);
  expect(res.body.detail).toEqual(expect.arrayContaining([{ loc, msg: expect.any(String), type }]));
};

describe('create body', () => {
  it.each([
    ['agent_id missing', { description: 'x' }, ['body', 'agent_id'], 'missing'],
    ['agent_id a number', { agent_id: 12 }, ['body', 'agent_id'], 'string_type'],
    ['agent_id empty', { agent_id: '' }, ['body', 'agent_id'], 'string_too_short'],
    ['agent_id null', { agent_id: null }, ['body', 'agent_id'], 'string_type'],
    ['description a number', { agent_id: '1', description: 5 }, ['body', 'description'], 'string_type'],
    [
      'description over 1000 chars',
      { agent_id: '1', description: 'x'.repeat(1001) },
      ['body', 'description'],
      'string_too_long',
    ],
    ['an array', ['1'], ['body'], 'dict_type'],
  ])('%s → 422', async (_name, body, loc, type) => {
    expect422(await request(t.app).post('/agent-webhooks/').set('x-api-key', alice).send(body), loc, type);
  });

  it('no body → 422 missing', async () => {
    expect422(await request(t.app).post('/agent-webhooks/').set('x-api-key', alice), ['body'], 'missing');
  });

  it('invalid JSON → 422 json_invalid', async () => {
    const res = await request(t.app)
      .post('/agent-webhooks/')
      .set('x-api-key', alice)
      .set('content-type', 'application/json')
      .send('{"agent_id": ');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'json_invalid' }] });
  });

  it('a description of exactly 1000 chars is fine', async () => {
    const res = await request(t.app)
      .post('/agent-webhooks/')
      .set('x-api-key', alice)
      .send({ agent_id: agentId, description: 'x'.repeat(1000) });
    expect(res.status).toBe(201);
  });
});

describe('patch body', () => {
  it.each([
    ['description a number', { description: 5 }, ['body', 'description'], 'string_type'],
    ['description over 1000 chars', { description: 'x'.repeat(1001) }, ['body', 'description'], 'string_too_long'],
    ['an array', [{ description: 'x' }], ['body'], 'dict_type'],
  ])('%s → 422', async (_name, body, loc, type) => {
    expect422(await request(t.app).patch(`/agent-webhooks/${webhookId}`).set('x-api-key', alice).send(body), loc, type);
  });
});

describe('bulk pause body', () => {
  const bulk = (body?: unknown) => {
    const req = request(t.app).post('/agent-webhooks/pause-bulk/').set('x-api-key', alice);
    return body === undefined ? req : req.set('content-type', 'application/json').send(JSON.stringify(body));
  };

  it('101 ids → 422; 100 are fine', async () => {
    expect422(await bulk(Array.from({ length: 101 }, () => webhookId)), ['body'], 'too_long');
    const ok = await bulk(Array.from({ length: 100 }, () => 'x'));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ total_requested: 100, invalid_count: 100 });
  });

  it('an object instead of an array → 422 list_type', async () => {
    expect422(await bulk({ ids: [webhookId] }), ['body'], 'list_type');
  });

  it.each([['"abc"'], ['7'], ['null'], ['true']])(
    'top-level JSON %s → 422 on the body (the parser takes objects and arrays only)',
    async (raw) => {
      const res = await request(t.app)
        .post('/agent-webhooks/pause-bulk/')
        .set('x-api-key', alice)
        .set('content-type', 'application/json')
        .send(raw);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc: ['body'], msg: expect.any(String), type: 'json_invalid' }]);
    },
  );

  it('no body → 422 missing', async () => {
    expect422(await bulk(), ['body'], 'missing');
  });

  it('non-string entries → 422 naming each index', async () => {
    const res = await bulk([webhookId, 5, null, { id: webhookId }, 'ok']);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 1],
      ['body', 2],
      ['body', 3],
    ]);
    expect(res.body.detail[0].type).toBe('string_type');
    const still = await request(t.app).get(`/agent-webhooks/${webhookId}`).set('x-api-key', alice);
    expect(still.body.is_active).toBe(true);
  });
});

describe('regenerate-secret query', () => {
  it.each([
    ['-1', 'greater_than_equal'],
    ['604801', 'less_than_equal'],
    ['1.5', 'int_type'],
    ['soon', 'float_type'],
  ])('grace_seconds=%s → 422', async (value, type) => {
    const res = await request(t.app)
      .post(`/agent-webhooks/${webhookId}/regenerate-secret?grace_seconds=${value}`)
      .set('x-api-key', alice);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'grace_seconds'], msg: expect.any(String), type }] });
  });

  it.each(['0', '604800'])('grace_seconds=%s is within the limits', async (value) => {
    const res = await request(t.app)
      .post(`/agent-webhooks/${webhookId}/regenerate-secret?grace_seconds=${value}`)
      .set('x-api-key', alice);
    expect(res.status).toBe(200);
  });
});
