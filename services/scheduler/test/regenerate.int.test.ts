import request from 'supertest';

import { mongoose } from '@platform/db';

import { SECRET, startSchedulerApp, WEBHOOK_KEYS, type SchedulerTestApp } from './helpers';

let t: SchedulerTestApp;
let alice: string;
let agentId: string;
const owner = { user_id: 'alice', org_id: 'acme' };

beforeAll(async () => {
  t = await startSchedulerApp();
  alice = await t.dbs.mintKey(owner);
  agentId = await t.createAgent(alice);
}, 60_000);
afterAll(() => t.close(), 30_000);

const newWebhook = async () =>
  (await request(t.app).post('/agent-webhooks/').set('x-api-key', alice).send({ agent_id: agentId })).body;
const regenerate = (id: string, query = '') =>
  request(t.app).post(`/agent-webhooks/${id}/regenerate-secret${query}`).set('x-api-key', alice);

/**
 * Sets the app's clock to `leftMs` before the old secret's grace of `graceMs` ends, counted from the rotation's own
 * instant (the answer's `updated_at`), not from when the test got there: a slow request cannot eat the margin.
 */
const atGraceLeft = (rotatedAt: string, graceMs: number, leftMs: number) =>
  t.setClock(new Date(new Date(rotatedAt).getTime() + graceMs - leftMs));

it('answers 200 with the webhook and a new secret; the old one verifies for the default grace of a day', async () => {
  const before = await newWebhook();
  const res = await regenerate(before.id);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(WEBHOOK_KEYS);
  expect(res.body.secret_key).toMatch(SECRET);
  expect(res.body.secret_key).not.toBe(before.secret_key);
  expect(res.body).toMatchObject({ id: before.id, created_at: before.created_at, is_active: true });
  expect(res.body.updated_at).not.toBeNull();
  expect((await request(t.app).get(`/agent-webhooks/${before.id}`).set('x-api-key', alice)).body.secret_key).toBe(
    res.body.secret_key,
  );

  expect(await t.webhooks.validSecrets(owner, before.id)).toEqual([res.body.secret_key, before.secret_key]);
  atGraceLeft(res.body.updated_at, 86_400_000, 1000);
  expect(await t.webhooks.validSecrets(owner, before.id)).toEqual([res.body.secret_key, before.secret_key]);
  atGraceLeft(res.body.updated_at, 86_400_000, 0);
  expect(await t.webhooks.validSecrets(owner, before.id)).toEqual([res.body.secret_key]);
});

it('grace_seconds sets how long the old secret keeps verifying', async () => {
  const before = await newWebhook();
  const res = await regenerate(before.id, '?grace_seconds=60');
  expect(res.status).toBe(200);
  atGraceLeft(res.body.updated_at, 60_000, 1000);
  expect(await t.webhooks.validSecrets(owner, before.id)).toEqual([res.body.secret_key, before.secret_key]);
  atGraceLeft(res.body.updated_at, 60_000, 0);
  expect(await t.webhooks.validSecrets(owner, before.id)).toEqual([res.body.secret_key]);
});

it('grace_seconds=0 retires the old secret at once', async () => {
  const before = await newWebhook();
  const res = await regenerate(before.id, '?grace_seconds=0');
  expect(res.status).toBe(200);
  expect(await t.webhooks.validSecrets(owner, before.id)).toEqual([res.body.secret_key]);
});

it('a second regeneration keeps only the secret it replaced; both are stored sealed', async () => {
  const first = await newWebhook();
  const second = (await regenerate(first.id)).body;
  const third = (await regenerate(first.id, '?grace_seconds=100')).body;
  expect(await t.webhooks.validSecrets(owner, first.id)).toEqual([third.secret_key, second.secret_key]);
  const doc = await t.dbs.conn.collection('webhooks').findOne({ _id: new mongoose.Types.ObjectId(first.id) });
  const raw = JSON.stringify(doc);
  for (const s of [first, second, third]) expect(raw).not.toContain(s.secret_key.slice('whsec_'.length));
  expect(t.box.decrypt(String(doc?.previous_secret_key_sealed))).toBe(second.secret_key);
  expect(new Date(doc?.previous_secret_expires_at).getTime() - new Date(third.updated_at).getTime()).toBe(100_000);
});

it('concurrent regenerations each rotate once: the final previous secret is one that was current', async () => {
  const w = await newWebhook();
  const results = await Promise.all(Array.from({ length: 4 }, () => regenerate(w.id)));
  expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  const issued = new Set([w.secret_key, ...results.map((r) => r.body.secret_key)]);
  expect(issued.size).toBe(5);
  const [current, previous] = await t.webhooks.validSecrets(owner, w.id);
  expect(issued.has(current!)).toBe(true);
  expect(issued.has(previous!)).toBe(true);
  expect(current).not.toBe(previous);
});
