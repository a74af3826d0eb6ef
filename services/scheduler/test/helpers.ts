import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';

import { createAgentDirectory } from '@platform/agent-client';
import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { parseAllowHosts } from '@platform/outbound';
import { pingRedis, producerConnection, type RedisConnection } from '@platform/queue';
import { createWebhookStats } from '@platform/scheduling';
import { createSecretBox, type SecretBox } from '@platform/secrets';
import {
  captureLogger,
  createTestDatabases,
  startServiceProcess,
  testInfra,
  uniqueName,
  type ServiceProcess,
  type TestDatabases,
  type TestDatabasesOptions,
} from '@platform/testing';

import { createApp, createWebhooks, type AppDeps } from '../src/app';
import type { WebhookService } from '../src/webhooks/webhook.service';
import { createTestQueues, type TestQueues } from './queues';

export const PUBLIC_BASE_URL = 'https://hooks.example.test';
const AGENT_MAIN = resolve(__dirname, '../../agent/dist/main.js');

/** The real agent service as a process, on its own database, reading the test's auth database. */
export async function startAgentService(
  dbs: TestDatabases,
): Promise<{ process: ServiceProcess; close(): Promise<void> }> {
  const dbName = `${dbs.conn.name}_agent`;
  const proc = await startServiceProcess({
    script: AGENT_MAIN,
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: dbName,
      AUTH_DB: dbs.authDb,
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    },
  });
  return {
    process: proc,
    close: async () => {
      await proc.stop();
      await dbs.conn
        .useDb(dbName)
        .dropDatabase()
        .catch(() => undefined);
    },
  };
}

export interface SchedulerTestApp {
  app: Express;
  dbs: TestDatabases;
  /** The webhook service over the same deps (database, box, clock) as the app. */
  webhooks: WebhookService;
  box: SecretBox;
  scheduleBox: SecretBox;
  /** The key of `scheduleBox`, for worker processes. */
  scheduleKeyHex: string;
  /** The app's queues (their prefix is this app's own). */
  queues: TestQueues;
  prefix: string;
  redis: RedisConnection;
  deps: AppDeps;
  /** Moves the app's clock forward. */
  advanceClock(ms: number): void;
  /** Sets the app's clock (and the cron fire computation of its queues) to `at`; it runs on from there. */
  setClock(at: Date): void;
  now(): Date;
  lines: string[];
  /** Base URL of the agent service the app asks. */
  agentServiceUrl: string;
  /** Creates an agent owned by `key`'s owner in the real agent service; its id. */
  createAgent(key: string): Promise<string>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Ask this URL instead of a real agent service (none is started). */
  agentServiceUrl?: string;
  agentTimeoutMs?: number;
  redisUrl?: string;
  /** Another MongoDB server (e.g. a private store the test stops). */
  mongoUri?: string;
  /** More `connectMongo` options for the app's databases (a private store's adapter settings). */
  connect?: TestDatabasesOptions['connect'];
  /**
   * OUTBOUND_ALLOW_HOSTS of the app: the literal addresses callbacks and HTTP schedules may name although loopback or
   * private. Default `127.0.0.1`, where the tests' local servers listen.
   */
  outboundAllow?: string;
}

/** The real scheduler app on a fresh database of the real server, beside a real agent service process. */
export async function startSchedulerApp(opts: StartOptions = {}): Promise<SchedulerTestApp> {
  const dbs = await createTestDatabases('scheduler', opts.mongoUri, { connect: opts.connect });
  const agentService = opts.agentServiceUrl ? undefined : await startAgentService(dbs);
  const agentServiceUrl = opts.agentServiceUrl ?? agentService!.process.url;
  const { logger, lines } = captureLogger('scheduler');
  const redis = producerConnection(opts.redisUrl ?? testInfra.redisUrl);
  redis.on('error', () => undefined);
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);
  const prefix = uniqueName('q');
  const queues = createTestQueues(redis, prefix, () => clock().getTime());
  const box = createSecretBox(randomBytes(32));
  const scheduleKey = randomBytes(32);
  const scheduleBox = createSecretBox(scheduleKey);
  const deps: AppDeps = {
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    box,
    scheduleBox,
    agents: createAgentDirectory({ baseUrl: agentServiceUrl, timeoutMs: opts.agentTimeoutMs ?? 5000, logger }),
    publicBaseUrl: PUBLIC_BASE_URL,
    readiness: { mongodb: () => pingMongo(dbs.conn), redis: () => pingRedis(redis, 1000) },
    clock,
    queues: queues.queues,
    fires: queues.fires,
    stats: createWebhookStats(dbs.conn, logger),
    outboundAllow: parseAllowHosts(opts.outboundAllow ?? '127.0.0.1'),
  };
  const app = createApp(deps);
  await syncIndexes(dbs.conn);
  return {
    app,
    dbs,
    webhooks: createWebhooks(deps),
    box,
    scheduleBox,
    scheduleKeyHex: scheduleKey.toString('hex'),
    queues,
    prefix,
    redis,
    deps,
    advanceClock: (ms) => {
      offsetMs += ms;
    },
    setClock: (at) => {
      offsetMs = at.getTime() - Date.now();
    },
    now: clock,
    lines,
    agentServiceUrl,
    async createAgent(key) {
      const res = await request(agentServiceUrl).post('/v3/agents/').set('x-api-key', key).send({
        name: 'Webhook target',
        system_prompt: 'You are helpful.',
        provider_id: 'openai',
        model: 'gpt-4o-mini',
      });
      if (res.status !== 201) throw new Error(`agent create answered ${res.status}: ${res.text}`);
      return String(res.body.agent_id);
    },
    async close() {
      // The run statistics written later (coalesced) go now, not after this file's environment is gone.
      await deps.stats.flush().catch(() => undefined);
      await queues.close();
      redis.disconnect();
      await agentService?.close();
      await dbs.cleanup();
    },
  };
}

/** The exact keys of the spec's Webhook object. */
export const WEBHOOK_KEYS = [
  'agent_id',
  'callback_url',
  'created_at',
  'description',
  'id',
  'is_active',
  'last_trigger_success',
  'last_triggered_at',
  'max_concurrency',
  'secret_key',
  'trigger_count',
  'updated_at',
  'user_id',
  'webhook_url',
];

export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
