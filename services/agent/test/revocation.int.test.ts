import request from 'supertest';

import { startAgentApp, type AgentTestApp } from './helpers';

const TTL_MS = 1_500;
let t: AgentTestApp;

beforeAll(async () => {
  t = await startAgentApp({ cacheTtlMs: TTL_MS });
});
afterAll(() => t.close());

it('a revoked key stops working within the cache TTL', async () => {
  const key = await t.dbs.mintKey({ user_id: 'carol', org_id: 'acme' });
  expect((await request(t.app).get('/v3/agents/').set('x-api-key', key)).status).toBe(200);
  await t.dbs.revokeKey(key);
  const revokedAt = Date.now();
  let status = 200;
  while (status === 200 && Date.now() - revokedAt < TTL_MS + 1_000) {
    status = (await request(t.app).get('/v3/agents/').set('x-api-key', key)).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 100));
  }
  expect(status).toBe(403);
  expect(Date.now() - revokedAt).toBeLessThanOrEqual(TTL_MS + 200);
  // and other keys are unaffected
  const other = await t.dbs.mintKey({ user_id: 'carol', org_id: 'acme' });
  expect((await request(t.app).get('/v3/agents/').set('x-api-key', other)).status).toBe(200);
});
