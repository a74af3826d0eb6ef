import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import { createAgentDirectory } from '@platform/agent-client';
import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { openRedisChangeBus, producerConnection, type ChangeBus, type RedisConnection } from '@platform/queue';
import { createWebhookStats } from '@platform/scheduling';
import { createSecretBox } from '@platform/secrets';
import { captureLogger, createTestDatabases, testInfra, uniqueName, type TestDatabases } from '@platform/testing';

import { createApp, type AppDeps } from '../src/app';
import { signSha256 } from '../src/webhooks/signature';
import { createWebhookRepository } from '../src/webhooks/webhook.repository';
import { createTestQueues, type TestQueues } from './queues';

// Two replicas of the scheduler over one database and one Redis, as a Deployment with two pods runs them. The
// trigger's webhook lookup is cached in each; an edit made through either must take effect in both at once.
const OWNER = { user_id: 'alice', org_id: 'acme' };
let dbs: TestDatabases;
let redis: RedisConnection;
const buses: ChangeBus[] = [];
let queues: TestQueues;
let key: string;
const box = createSecretBox(randomBytes(32));
const channel = uniqueName('webhook-changed');

interface Replica {
  app: Express;
  deps: AppDeps;
}
let a: Replica;
let b: Replica;

function replica(ttlMs: number, bus?: ChangeBus): Replica {
  const { logger } = captureLogger('scheduler');
  const deps: AppDeps = {
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    box,
    scheduleBox: createSecretBox(randomBytes(32)),
    agents: createAgentDirectory({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1_000, logger }),
    publicBaseUrl: 'https://hooks.example.test',
    readiness: { mongodb: () => pingMongo(dbs.conn) },
    queues: queues.queues,
    fires: queues.fires,
    stats: createWebhookStats(dbs.conn, logger),
    webhookChanges: bus,
    webhookCacheTtlMs: ttlMs,
  };
  return { app: createApp(deps), deps };
}

function redisBus(): ChangeBus {
  const bus = openRedisChangeBus({ url: testInfra.redisUrl, publisher: redis, channel });
  buses.push(bus);
  return bus;
}

beforeAll(async () => {
  dbs = await createTestDatabases('trigger_cache');
  redis = producerConnection(testInfra.redisUrl);
  queues = createTestQueues(redis, uniqueName('q'));
  key = await dbs.mintKey(OWNER);
  // A long TTL: only the change messages can make these replicas see an edit in time.
  a = replica(600_000, redisBus());
  b = replica(600_000, redisBus());
  await syncIndexes(dbs.conn);
  await new Promise((r) => setTimeout(r, 200)); // both subscriptions in place
});
afterAll(async () => {
  await Promise.all(buses.map((x) => x.close()));
  await queues.close();
  redis.disconnect();
  await dbs.cleanup();
});

/** A webhook stored as the create route stores it (the route itself would ask an agent service for the agent). */
async function newWebhook(): Promise<{ id: string; secret: string }> {
  const secret = 'whsec_' + randomBytes(32).toString('base64');
  const created = await createWebhookRepository(dbs.conn).create(
    OWNER,
    { agent_id: '7', description: null, secret_key_sealed: box.encrypt(secret) },
    new Date(),
  );
  return { id: created.id, secret };
}

const trigger = (r: Replica, hook: { id: string; secret: string }, body = '{"n":1}') =>
  request(r.app)
    .post(`/webhook-trigger/${hook.id}`)
    .set('content-type', 'application/json')
    .set('x-webhook-signature', signSha256(hook.secret, body))
    .send(body);

const eventuallyStatus = async (r: Replica, hook: { id: string; secret: string }, status: number) => {
  for (let i = 0; i < 20; i++) {
    const res = await trigger(r, hook);
    if (res.status === status) return res;
    await new Promise((x) => setTimeout(x, 25));
  }
  return trigger(r, hook);
};

it('a pause made in one replica stops triggers in the other although it had the webhook cached', async () => {
  const hook = await newWebhook();
  expect((await trigger(b, hook)).status).toBe(202); // b caches it
  expect((await trigger(a, hook)).status).toBe(202);
  expect((await request(a.app).post(`/agent-webhooks/${hook.id}/pause`).set('x-api-key', key)).status).toBe(200);
  expect((await eventuallyStatus(b, hook, 409)).body).toEqual({ detail: 'Webhook is paused' });
  expect((await trigger(a, hook)).status).toBe(409);

  expect((await request(b.app).post(`/agent-webhooks/${hook.id}/resume`).set('x-api-key', key)).status).toBe(200);
  expect((await eventuallyStatus(a, hook, 202)).status).toBe(202);
});

it('a deletion in one replica makes the other answer 404', async () => {
  const hook = await newWebhook();
  expect((await trigger(b, hook)).status).toBe(202);
  expect((await request(a.app).delete(`/agent-webhooks/${hook.id}`).set('x-api-key', key)).status).toBe(204);
  expect((await eventuallyStatus(b, hook, 404)).body).toEqual({ detail: 'Webhook not found' });
});

it('within one replica an edit takes effect on the very next trigger', async () => {
  const hook = await newWebhook();
  expect((await trigger(a, hook)).status).toBe(202);
  expect((await request(a.app).post(`/agent-webhooks/${hook.id}/pause`).set('x-api-key', key)).status).toBe(200);
  expect((await trigger(a, hook)).status).toBe(409);
});

it('without change messages, a replica sees an edit once its cached copy is older than the TTL', async () => {
  const lonely = replica(300); // its own in-process bus: nobody else's edits reach it
  const hook = await newWebhook();
  expect((await trigger(lonely, hook)).status).toBe(202);
  expect((await request(a.app).post(`/agent-webhooks/${hook.id}/pause`).set('x-api-key', key)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 350));
  expect((await trigger(lonely, hook)).status).toBe(409);
});
