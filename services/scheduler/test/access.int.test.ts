import request from 'supertest';

import { startSchedulerApp, type SchedulerTestApp } from './helpers';

let t: SchedulerTestApp;
let alice: string; // user alice in org acme
let bob: string; // another user, same org
let aliceElsewhere: string; // the same user id in another org
let webhookId: string;

beforeAll(async () => {
  t = await startSchedulerApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  aliceElsewhere = await t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
  const agentId = await t.createAgent(alice);
  const res = await request(t.app).post('/agent-webhooks/').set('x-api-key', alice).send({ agent_id: agentId });
  webhookId = res.body.id;
}, 60_000);
afterAll(() => t.close(), 30_000);

type Method = 'get' | 'post' | 'patch' | 'delete';
const routes = (id: string): [Method, string, unknown][] => [
  ['post', '/agent-webhooks/', { agent_id: '1' }],
  ['get', '/agent-webhooks/', undefined],
  ['post', '/agent-webhooks/pause-bulk/', [id]],
  ['get', `/agent-webhooks/${id}`, undefined],
  ['patch', `/agent-webhooks/${id}`, { description: 'x' }],
  ['delete', `/agent-webhooks/${id}`, undefined],
  ['post', `/agent-webhooks/${id}/pause`, undefined],
  ['post', `/agent-webhooks/${id}/resume`, undefined],
  ['post', `/agent-webhooks/${id}/regenerate-secret`, undefined],
];

function send(method: Method, path: string, body: unknown, key?: string) {
  const req = request(t.app)[method](path);
  if (key !== undefined) req.set('x-api-key', key);
  return body === undefined ? req : req.send(body as object);
}

describe('403 on every route', () => {
  it.each(routes('0'.repeat(24)))(
    '%s %s without a key → API key missing; with a bad key → Invalid Permission',
    async (method, path, body) => {
      const missing = await send(method, path, body);
      expect(missing.status).toBe(403);
      expect(missing.body).toEqual({ detail: 'API key missing' });
      for (const bad of ['nonsense', `sk_${'A'.repeat(40)}`]) {
        const invalid = await send(method, path, body, bad);
        expect(invalid.status).toBe(403);
        expect(invalid.body).toEqual({ detail: 'Invalid Permission' });
      }
    },
  );
});

describe("another owner's webhook is not found on every route", () => {
  const perId = () => routes(webhookId).filter(([, path]) => path.includes(webhookId));

  it.each([
    ['another user of the same org', () => bob],
    ['the same user id in another org', () => aliceElsewhere],
  ])('%s → 404 Webhook not found, and nothing changes', async (_who, key) => {
    for (const [method, path, body] of perId()) {
      const res = await send(method, path, body, key());
      expect({ method, path, status: res.status, body: res.body }).toEqual({
        method,
        path,
        status: 404,
        body: { detail: 'Webhook not found' },
      });
    }
    const bulk = await send('post', '/agent-webhooks/pause-bulk/', [webhookId], key());
    expect(bulk.status).toBe(200);
    expect(bulk.body).toMatchObject({ total_requested: 1, paused_count: 0, not_found_count: 1, paused_webhooks: [] });
    const list = await send('get', '/agent-webhooks/', undefined, key());
    expect(list.body).toEqual({ webhooks: [], total: 0 });

    const own = await send('get', `/agent-webhooks/${webhookId}`, undefined, alice);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: webhookId, is_active: true, description: null, updated_at: null });
  });
});
