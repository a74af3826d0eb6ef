import request from 'supertest';

import { startSchedulerApp, WEBHOOK_KEYS, type SchedulerTestApp } from './helpers';

let t: SchedulerTestApp;
let key: string;
let agentA: string;
let agentB: string;
/** Ids in creation order: a0 a1 a2 (agent A), b0 b1 (agent B); a1 and b0 are paused. */
const ids: string[] = [];

beforeAll(async () => {
  t = await startSchedulerApp();
  key = await t.dbs.mintKey({ user_id: 'lister', org_id: 'acme' });
  const other = await t.dbs.mintKey({ user_id: 'other', org_id: 'acme' });
  [agentA, agentB] = [await t.createAgent(key), await t.createAgent(key)];
  for (const agent_id of [agentA, agentA, agentA, agentB, agentB]) {
    ids.push((await request(t.app).post('/agent-webhooks/').set('x-api-key', key).send({ agent_id })).body.id);
  }
  for (const id of [ids[1], ids[3]]) await request(t.app).post(`/agent-webhooks/${id}/pause`).set('x-api-key', key);
  await request(t.app)
    .post('/agent-webhooks/')
    .set('x-api-key', other)
    .send({ agent_id: await t.createAgent(other) });
}, 60_000);
afterAll(() => t.close(), 30_000);

const list = (query = '') => request(t.app).get(`/agent-webhooks/${query}`).set('x-api-key', key);
const idsOf = (body: { webhooks: { id: string }[] }) => body.webhooks.map((w) => w.id);

it("lists only the caller's webhooks, newest first, with exactly the spec fields", async () => {
  const res = await list();
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['total', 'webhooks']);
  expect(res.body.total).toBe(5);
  expect(idsOf(res.body)).toEqual([...ids].reverse());
  for (const w of res.body.webhooks) expect(Object.keys(w).sort()).toEqual(WEBHOOK_KEYS);
});

it.each([
  ['?limit=2', [4, 3], 5],
  ['?skip=1&limit=2', [3, 2], 5],
  ['?skip=4', [0], 5],
  ['?skip=50', [], 5],
  ['?is_active=false', [3, 1], 2],
  ['?is_active=true', [4, 2, 0], 3],
  ['?agent_id=A', [2, 1, 0], 3],
  ['?agent_id=B&is_active=true', [4], 1],
  ['?agent_id=A&is_active=false&limit=1', [1], 1],
  ['?agent_id=999999', [], 0],
])('%s → the matching page, and total counts every match', async (query, expected, total) => {
  const res = await list(query.replace('A', agentA).replace('B', agentB));
  expect(res.status).toBe(200);
  expect(idsOf(res.body)).toEqual(expected.map((i) => ids[i]));
  expect(res.body.total).toBe(total);
});

it.each([
  ['limit=0', 'limit', 'greater_than_equal'],
  ['limit=101', 'limit', 'less_than_equal'],
  ['limit=ten', 'limit', 'float_type'],
  ['limit=1.5', 'limit', 'int_type'],
  ['skip=-1', 'skip', 'greater_than_equal'],
  ['skip=x', 'skip', 'float_type'],
  ['is_active=maybe', 'is_active', 'bool_type'],
  ['is_active=1', 'is_active', 'bool_type'],
  ['is_active=true&is_active=false', 'is_active', 'bool_type'],
  ['agent_id=', 'agent_id', 'string_too_short'],
])('?%s → 422 naming the query parameter', async (query, field, type) => {
  const res = await list(`?${query}`);
  expect(res.status).toBe(422);
  expect(res.body).toEqual({ detail: [{ loc: ['query', field], msg: expect.any(String), type }] });
});
