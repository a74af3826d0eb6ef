import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import { createAgentDirectory } from '@platform/agent-client';
import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { connectMongo, mongoose, pingMongo, syncIndexes, type Connection } from '@platform/db';
import { producerConnection, type RedisConnection } from '@platform/queue';
import { createWebhookStats } from '@platform/scheduling';
import { createSecretBox } from '@platform/secrets';
import {
  captureLogger,
  monitorRedis,
  privateRedis,
  testInfra,
  uniqueName,
  type PrivateRedis,
  type RedisMonitor,
} from '@platform/testing';

import { createApp } from '../src/app';
import { signSha256 } from '../src/webhooks/signature';
import { createWebhookRepository } from '../src/webhooks/webhook.repository';
import { createTestQueues, type TestQueues } from './queues';

/**
 * The work of one accepted webhook trigger, counted: database commands (the driver's command monitoring) and Redis
 * commands (MONITOR on a Redis of this file's own; commands run inside BullMQ's Lua scripts are not round trips and
 * are left out). Budgets, per trigger in steady state:
 * - database: 1 command, the execution insert (its one write; an idempotency key, when the sender gives one, adds
 *   its insert). The webhook lookup is served by the trigger cache (webhook.trigger-cache.ts) after the first
 *   trigger; the webhook's statistics are coalesced to at most one write a second for every webhook together (on FerretDB an
 *   update is 4 commands: read, revision claim, write, claim release; on MongoDB 1).
 * - Redis: 1 command, the job add (one EVALSHA of BullMQ's script).
 */
const N = 20;
/** Triggers sent at once in the burst case. */
const BURST = 64;
const DB_PER_TRIGGER = 1;
const DB_PER_STATS_WRITE = 4;
const REDIS_PER_TRIGGER = 1;

let redisServer: PrivateRedis;
let conn: Connection;
let authConn: Connection;
let redis: RedisConnection;
let monitor: RedisMonitor;
let queues: TestQueues;
let app: Express;
const secret = 'whsec_' + randomBytes(32).toString('base64');
let webhookId: string;
let stats: ReturnType<typeof createWebhookStats> | undefined;
const dbCommands: string[] = [];

beforeAll(async () => {
  redisServer = await privateRedis();
  await redisServer.start();
  const dbName = uniqueName('work');
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName, monitorCommands: true });
  authConn = await connectMongo({ uri: testInfra.mongoUri, dbName: `${dbName}_auth` });
  conn
    .getClient()
    .on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) =>
      dbCommands.push(`${e.commandName} ${String(e.command[e.commandName])}`),
    );
  const { logger } = captureLogger('scheduler');
  redis = producerConnection(redisServer.url);
  queues = createTestQueues(redis, uniqueName('q'));
  const box = createSecretBox(randomBytes(32));
  app = createApp({
    logger,
    db: conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(authConn), cacheTtlMs: 30_000 }),
    box,
    scheduleBox: createSecretBox(randomBytes(32)),
    // Never asked on the trigger path (the webhook is made below without the agent check).
    agents: createAgentDirectory({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1_000, logger }),
    publicBaseUrl: 'https://hooks.example.test',
    readiness: { mongodb: () => pingMongo(conn) },
    queues: queues.queues,
    fires: queues.fires,
    stats: (stats = createWebhookStats(conn, logger)),
    triggers: { maxAttempts: 3, enqueueTimeoutMs: 2_000, retryBackoffMs: 200 },
  });
  await syncIndexes(conn);
  const webhook = await createWebhookRepository(conn).create(
    { user_id: 'alice', org_id: 'acme' },
    { agent_id: '1', description: null, secret_key_sealed: box.encrypt(secret) },
    new Date(),
  );
  webhookId = webhook.id;
  monitor = await monitorRedis(redisServer.url);
}, 60_000);

afterAll(async () => {
  // The statistics counted by the last triggers are written before the connections close (as the service's stop does).
  await stats?.flush().catch(() => undefined);
  await monitor?.close();
  await queues?.close();
  redis?.disconnect();
  await conn?.dropDatabase().catch(() => undefined);
  await authConn?.dropDatabase().catch(() => undefined);
  await conn?.close();
  await authConn?.close();
  await redisServer?.stop();
});

const trigger = (i: number) => {
  const body = JSON.stringify({ event: 'order.created', n: i, pad: 'x'.repeat(800) });
  return request(app)
    .post(`/webhook-trigger/${webhookId}`)
    .set('content-type', 'application/json')
    .set('x-webhook-signature', signSha256(secret, body))
    .send(body);
};

it(`an accepted trigger costs ${DB_PER_TRIGGER} database commands (+ statistics at most once a second) and ${REDIS_PER_TRIGGER} Redis command`, async () => {
  // Warm-up: index creation, script loading and the first statistics flush are not per-trigger work.
  for (let i = 0; i < 3; i++) expect((await trigger(i)).status).toBe(202);
  await new Promise((r) => setTimeout(r, 300));
  dbCommands.length = 0;
  monitor.reset();
  const started = Date.now();
  for (let i = 0; i < N; i++) expect((await trigger(100 + i)).status).toBe(202);
  const seconds = Math.ceil((Date.now() - started) / 1000);
  await new Promise((r) => setTimeout(r, 1_300));
  const perDb = dbCommands.length / N;
  const redisCommands = monitor.commands();
  const perRedis = redisCommands.length / N;
  // Printed for the benchmark notes: what the work is made of.
  process.stdout.write(
    `trigger work: ${perDb} database commands (${summary(dbCommands)}), ${perRedis} Redis commands (${summary(redisCommands)}) per trigger\n`,
  );
  expect(dbCommands.filter((c) => c.startsWith('insert executions'))).toHaveLength(N);
  expect(dbCommands.length).toBeLessThanOrEqual(N * DB_PER_TRIGGER + (seconds + 1) * DB_PER_STATS_WRITE);
  expect(redisCommands.length).toBeLessThanOrEqual(N * REDIS_PER_TRIGGER);
  expect(await queues.queues.agentRuns.count()).toBe(N + 3);
}, 60_000);

it('triggers that arrive together are stored together: fewer inserts than triggers, every execution stored and queued', async () => {
  await new Promise((r) => setTimeout(r, 1_100)); // the statistics of the test before are flushed
  dbCommands.length = 0;
  const before = await queues.queues.agentRuns.count();
  const results = await Promise.all(Array.from({ length: BURST }, (_, i) => trigger(1_000 + i)));
  expect(results.map((r) => r.status)).toEqual(Array.from({ length: BURST }, () => 202));
  const inserts = dbCommands.filter((c) => c.startsWith('insert executions')).length;
  process.stdout.write(`trigger work: ${BURST} concurrent triggers stored by ${inserts} inserts\n`);
  // Four inserts may be in flight at once (INSERT_PARALLEL); the rest wait and go together.
  expect(inserts).toBeLessThanOrEqual(BURST / 4);
  const ids = results.map((r) => (r.body as { execution_id: string }).execution_id);
  expect(new Set(ids).size).toBe(BURST);
  expect(
    await conn
      .collection('executions')
      .countDocuments({ _id: { $in: ids.map((id) => new mongoose.Types.ObjectId(id)) } }),
  ).toBe(BURST);
  expect(await queues.queues.agentRuns.count()).toBe(before + BURST);
}, 60_000);

function summary(cmds: string[]): string {
  const counts = new Map<string, number>();
  for (const c of cmds) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].map(([c, n]) => `${c} ×${n}`).join(', ');
}
