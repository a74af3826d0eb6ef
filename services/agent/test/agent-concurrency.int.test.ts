import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { createOutboundClient } from '@platform/outbound';
import {
  createConcurrencyGate,
  limitPublisher,
  producerConnection,
  republishLimits,
  type ConcurrencyGate,
  type RedisConnection,
} from '@platform/queue';
import { createSecretBox } from '@platform/secrets';
import { captureLogger, createTestDatabases, testInfra, uniqueName, type TestDatabases } from '@platform/testing';

import { createAgentRepository } from '../src/agents/agent.repository';
import { createApp } from '../src/app';
import { agentBody } from './helpers';

/**
 * Contract §8 `max_concurrency` on agents: validated, stored, shown, and published for the worker (the concurrency
 * gate's `agent:<id>` limit under the queue prefix) on create, replace, partial update and delete, and republished
 * from the database (Redis keeps nothing on disk). The worker's side: services/worker/test/concurrency-limits.
 */
let dbs: TestDatabases;
let app: Express;
let redis: RedisConnection;
let gate: ConcurrencyGate;
let key: string;
const outbound = createOutboundClient({ allowHosts: '' });
const prefix = uniqueName('al');

beforeAll(async () => {
  dbs = await createTestDatabases('agent');
  redis = producerConnection(testInfra.redisUrl);
  gate = createConcurrencyGate({ redis, prefix, leaseMs: 1_000, waitTtlMs: 1_000 });
  const { logger } = captureLogger('agent');
  app = createApp({
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    box: createSecretBox(randomBytes(32)),
    outbound,
    readiness: { mongodb: () => pingMongo(dbs.conn) },
    agentLimits: limitPublisher(gate, 'agent', logger),
  });
  await syncIndexes(dbs.conn);
  key = await dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
});
afterAll(async () => {
  outbound.close();
  const left = await redis.keys(`{${prefix}:gate}:*`);
  if (left.length > 0) await redis.del(...left);
  redis.disconnect();
  await dbs.cleanup();
});

const create = (body: object) => request(app).post('/v3/agents/').set('x-api-key', key).send(body);
const get = (id: string) => request(app).get(`/v3/agents/${id}`).set('x-api-key', key);
const published = async (id: string) => (await gate.limits([`agent:${id}`]))[0]?.limit ?? null;

describe('validation', () => {
  it.each([0, 1001, 1.5, '2', -1, true])('max_concurrency %p → 422 at body.max_concurrency', async (value) => {
    const res = await create(agentBody({ max_concurrency: value }));
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('max_concurrency');
  });

  it('the single-task routes check it too', async () => {
    const res = await request(app)
      .post('/v3/agents/template/single-task')
      .set('x-api-key', key)
      .send({ name: 'one', max_concurrency: 0 });
    expect(res.status).toBe(422);
  });

  it.each([1, 1000])('accepts %p', async (value) => {
    expect((await create(agentBody({ max_concurrency: value }))).status).toBe(201);
  });
});

it('is null and unpublished when absent', async () => {
  const id = String((await create(agentBody())).body.id);
  expect((await get(id)).body.max_concurrency).toBeNull();
  expect(await published(id)).toBeNull();
});

it('is stored, shown and published on create, replace, partial update and delete', async () => {
  const id = String((await create(agentBody({ max_concurrency: 3 }))).body.id);
  expect((await get(id)).body.max_concurrency).toBe(3);
  expect(await published(id)).toBe(3);

  // PUT replaces every field: a new limit, then none (absent).
  await request(app)
    .put(`/v3/agents/${id}`)
    .set('x-api-key', key)
    .send(agentBody({ max_concurrency: 5 }))
    .expect(200);
  expect((await get(id)).body.max_concurrency).toBe(5);
  expect(await published(id)).toBe(5);
  await request(app).put(`/v3/agents/${id}`).set('x-api-key', key).send(agentBody()).expect(200);
  expect((await get(id)).body.max_concurrency).toBeNull();
  expect(await published(id)).toBeNull();

  await request(app)
    .put(`/v3/agents/${id}`)
    .set('x-api-key', key)
    .send(agentBody({ max_concurrency: 2 }))
    .expect(200);
  await request(app).delete(`/v3/agents/${id}`).set('x-api-key', key).expect(204);
  expect(await published(id)).toBeNull();
});

it('the partial update of a single-task agent changes the limit only when sent', async () => {
  const res = await request(app)
    .post('/v3/agents/template/single-task')
    .set('x-api-key', key)
    .send({ name: 'one', max_concurrency: 4 })
    .expect(201);
  const id = String(res.body.id);
  expect(await published(id)).toBe(4);
  const patch = (body: object) =>
    request(app).put(`/v3/agents/template/single-task/${id}`).set('x-api-key', key).send(body).expect(200);
  await patch({ description: 'no limit change' });
  expect((await get(id)).body.max_concurrency).toBe(4);
  expect(await published(id)).toBe(4);
  await patch({ max_concurrency: 7 });
  expect((await get(id)).body.max_concurrency).toBe(7);
  expect(await published(id)).toBe(7);
  await patch({ max_concurrency: null });
  expect((await get(id)).body.max_concurrency).toBeNull();
  expect(await published(id)).toBeNull();
});

it('republishes every stored limit (a Redis that lost its keys gets them back)', async () => {
  const a = String((await create(agentBody({ max_concurrency: 6 }))).body.id);
  const b = String((await create(agentBody())).body.id);
  await gate.setLimit(`agent:${a}`, null); // as if Redis had restarted empty
  const { logger } = captureLogger('agent');
  const agents = createAgentRepository(dbs.conn);
  const republisher = republishLimits({ kind: 'agent', read: () => agents.concurrencyLimits(), gate, logger });
  await republisher.stop(); // waits for the round started at once
  expect(await published(a)).toBe(6);
  expect(await published(b)).toBeNull();
});
