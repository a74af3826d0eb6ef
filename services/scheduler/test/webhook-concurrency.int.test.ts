import type { Express } from 'express';
import request from 'supertest';

import { createConcurrencyGate, limitPublisher, republishLimits, type ConcurrencyGate } from '@platform/queue';
import { captureLogger } from '@platform/testing';

import { createApp } from '../src/app';
import { createWebhookRepository } from '../src/webhooks/webhook.repository';
import { startSchedulerApp, type SchedulerTestApp } from './helpers';

/**
 * Contract §8 `max_concurrency` on webhooks: validated, stored, shown, and published for the worker (the
 * concurrency gate's `webhook:<id>` limit under the queue prefix) on create, PATCH and delete, and republished from
 * the database (Redis keeps nothing on disk). The worker's side: services/worker/test/concurrency-limits.
 */
let t: SchedulerTestApp;
let app: Express;
let gate: ConcurrencyGate;
let alice: string;
let agentId: string;

beforeAll(async () => {
  t = await startSchedulerApp();
  gate = createConcurrencyGate({ redis: t.redis, prefix: t.prefix, leaseMs: 1_000, waitTtlMs: 1_000 });
  app = createApp({ ...t.deps, webhookLimits: limitPublisher(gate, 'webhook', captureLogger('scheduler').logger) });
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  agentId = await t.createAgent(alice);
}, 60_000);
afterAll(async () => {
  const left = await t.redis.keys(`{${t.prefix}:gate}:*`);
  if (left.length > 0) await t.redis.del(...left);
  await t.close();
}, 30_000);

const create = (body: object) =>
  request(app)
    .post('/agent-webhooks/')
    .set('x-api-key', alice)
    .send({ agent_id: agentId, ...body });
const patch = (id: string, body: object) =>
  request(app).patch(`/agent-webhooks/${id}`).set('x-api-key', alice).send(body);
const published = async (id: string) => (await gate.limits([`webhook:${id}`]))[0]?.limit ?? null;

describe('validation', () => {
  it.each([0, 1001, 1.5, '2', -3, false])('max_concurrency %p → 422 on create and on PATCH', async (value) => {
    const res = await create({ max_concurrency: value });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('max_concurrency');
    const id = (await create({})).body.id as string;
    const changed = await patch(id, { max_concurrency: value });
    expect(changed.status).toBe(422);
    expect(JSON.stringify(changed.body)).toContain('max_concurrency');
  });
});

it('is null and unpublished when absent', async () => {
  const res = await create({ description: 'no limit' });
  expect(res.status).toBe(201);
  expect(res.body.max_concurrency).toBeNull();
  expect(await published(res.body.id)).toBeNull();
});

it('is stored, shown and published on create, PATCH and delete', async () => {
  const res = await create({ max_concurrency: 2 });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  expect(res.body.max_concurrency).toBe(2);
  expect(await published(id)).toBe(2);

  // A PATCH of the description alone keeps the limit; one of the limit changes it, and null removes it.
  expect((await patch(id, { description: 'renamed' })).body).toMatchObject({
    description: 'renamed',
    max_concurrency: 2,
  });
  expect(await published(id)).toBe(2);
  expect((await patch(id, { max_concurrency: 1000 })).body.max_concurrency).toBe(1000);
  expect(await published(id)).toBe(1000);
  const got = await request(app).get(`/agent-webhooks/${id}`).set('x-api-key', alice);
  expect(got.body.max_concurrency).toBe(1000);
  expect((await patch(id, { max_concurrency: null })).body.max_concurrency).toBeNull();
  expect(await published(id)).toBeNull();

  expect((await patch(id, { max_concurrency: 1 })).status).toBe(200);
  expect(await published(id)).toBe(1);
  await request(app).delete(`/agent-webhooks/${id}`).set('x-api-key', alice).expect(204);
  expect(await published(id)).toBeNull();
});

it('republishes every stored limit (a Redis that lost its keys gets them back)', async () => {
  const limited = (await create({ max_concurrency: 3 })).body.id as string;
  const unlimited = (await create({})).body.id as string;
  await gate.setLimit(`webhook:${limited}`, null); // as if Redis had restarted empty
  const webhooks = createWebhookRepository(t.dbs.conn);
  const unit = republishLimits({
    kind: 'webhook',
    read: () => webhooks.concurrencyLimits(),
    gate,
    logger: captureLogger('scheduler').logger,
  });
  await unit.stop(); // waits for the round started at once
  expect(await published(limited)).toBe(3);
  expect(await published(unlimited)).toBeNull();
});
