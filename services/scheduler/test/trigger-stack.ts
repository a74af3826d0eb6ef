import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';

import { createAgentDirectory } from '@platform/agent-client';
import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { parseAllowHosts } from '@platform/outbound';
import { producerConnection, type Queue, type RedisConnection } from '@platform/queue';
import {
  createExecutionRepository,
  createRunRecovery,
  createWebhookStats,
  executionJobs,
  executionRunStore,
  type AgentRunJob,
  type ExecutionRecord,
  type FireJob,
  type WebhookStats,
} from '@platform/scheduling';
import { createSecretBox } from '@platform/secrets';
import {
  captureLogger,
  createTestDatabases,
  startFakeLlm,
  startServiceProcess,
  testInfra,
  uniqueName,
  type FakeLlm,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { createApp } from '../src/app';
import { signSha256 } from '../src/webhooks/signature';
import { createTestQueues, type TestQueues } from './queues';

const AGENT_MAIN = resolve(__dirname, '../../agent/dist/main.js');
const WORKER_MAIN = resolve(__dirname, '../../worker/dist/main.js');

export interface TriggerStack {
  app: Express;
  dbs: TestDatabases;
  llm: FakeLlm;
  agentService: ServiceProcess;
  workers: ServiceProcess[];
  key: string;
  agentId: string;
  webhook: { id: string; secret_key: string };
  queue: Queue<AgentRunJob>;
  /** The `schedule-fires` queue (cron job schedulers). */
  fires: Queue<FireJob>;
  /** Writes the webhook statistics the app holds back (one write a second for every webhook together). */
  flushStats(): Promise<void>;
  /** Runs one outbox sweep, as the scheduler's timer does. */
  sweepOutbox(): Promise<number>;
  startWorker(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  /** POSTs a body signed with the webhook's secret. */
  trigger(body: string, headers?: Record<string, string>, secret?: string): request.Test;
  execution(id: string): Promise<ExecutionRecord | null>;
  /** Polls until the execution has ended (or the timeout passes) and returns it. */
  waitEnded(id: string, timeoutMs?: number): Promise<ExecutionRecord>;
  close(): Promise<void>;
}

export interface StackOptions {
  redisUrl?: string;
  workerEnv?: Record<string, string>;
  startWorker?: boolean;
}

/**
 * The whole webhook path on real parts: the scheduler app (in process, supertest), the agent service and the
 * worker as real processes, BullMQ on real Redis (a queue prefix of this file's own), real FerretDB; only the
 * LLM provider is a local stand-in speaking the OpenAI protocol.
 */
export async function startTriggerStack(opts: StackOptions = {}): Promise<TriggerStack> {
  const redisUrl = opts.redisUrl ?? testInfra.redisUrl;
  const prefix = uniqueName('q');
  const internalSecret = randomBytes(32).toString('hex');
  const dbs = await createTestDatabases('trigger');
  const llm = await startFakeLlm('openai');
  const agentDb = `${dbs.conn.name}_agent`;
  const agentService = await startAgentService(dbs, agentDb, llm, internalSecret);
  const key = await dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  const agentId = await createHookAgent(agentService, llm, key);

  const { logger } = captureLogger('scheduler');
  const redis: RedisConnection = producerConnection(redisUrl);
  redis.on('error', () => undefined);
  const testQueues = createTestQueues(redis, prefix);
  const queue = testQueues.queues.agentRuns;
  const enqueueOpts = { timeoutMs: 1_000, backoffMs: 200 };
  const stats = createWebhookStats(dbs.conn, logger);
  const app = createApp({
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    box: createSecretBox(randomBytes(32)),
    scheduleBox: createSecretBox(randomBytes(32)),
    agents: createAgentDirectory({ baseUrl: agentService.url, timeoutMs: 5_000, logger }),
    publicBaseUrl: 'https://hooks.example.test',
    readiness: { mongodb: () => pingMongo(dbs.conn) },
    queues: testQueues.queues,
    fires: testQueues.fires,
    stats,
    triggers: { maxAttempts: 3, ...enqueueOpts },
    outboundAllow: parseAllowHosts('127.0.0.1'), // where the tests' local targets listen
  });
  await syncIndexes(dbs.conn);
  const created = await request(app).post('/agent-webhooks/').set('x-api-key', key).send({ agent_id: agentId });
  if (created.status !== 201) throw new Error(`webhook create: ${created.status} ${created.text}`);
  const executions = createExecutionRepository(dbs.conn);
  const recover = createRunRecovery({
    store: executionRunStore(executions),
    jobs: executionJobs(testQueues.queues, enqueueOpts, (id) => executions.get(id)),
    clock: () => new Date(),
    logger,
    queuedAfterMs: 0,
    runningAfterMs: 60_000,
    maxRecoveries: 5,
  });
  const sweepOutbox = async () => {
    const t = await recover();
    return t.enqueued + t.recovered;
  };

  const workers: ServiceProcess[] = [];
  const startWorker = workerStarter({ opts, workers, dbs, redisUrl, prefix, agentService, internalSecret });
  if (opts.startWorker !== false) await startWorker();

  const stack: TriggerStack = {
    app,
    dbs,
    llm,
    agentService,
    workers,
    key,
    agentId,
    webhook: { id: created.body.id, secret_key: created.body.secret_key },
    queue,
    fires: testQueues.fires,
    sweepOutbox,
    flushStats: () => stats.flush(),
    startWorker,
    trigger(body, headers = {}, secret = stack.webhook.secret_key) {
      return request(app)
        .post(`/webhook-trigger/${stack.webhook.id}`)
        .set('content-type', 'application/json')
        .set('x-webhook-signature', signSha256(secret, body))
        .set(headers)
        .send(body); // a string goes out byte for byte (a Buffer would be re-encoded as JSON)
    },
    execution: (id) => executions.get(id),
    async waitEnded(id, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const e = await executions.get(id);
        if (e && ['succeeded', 'failed', 'skipped'].includes(e.status)) return e;
        if (Date.now() > deadline) throw new Error(`execution ${id} did not end: ${JSON.stringify(e)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => closeTriggerStack({ workers, stats, testQueues, redis, agentService, llm, dbs, agentDb }),
  };
  return stack;
}

/** The real agent service as a process, on its own database, reaching the LLM stand-in only. */
async function startAgentService(
  dbs: TestDatabases,
  agentDb: string,
  llm: FakeLlm,
  internalSecret: string,
): Promise<ServiceProcess> {
  return startServiceProcess({
    script: AGENT_MAIN,
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: agentDb,
      AUTH_DB: dbs.authDb,
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      INTERNAL_SERVICE_SECRET: internalSecret,
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${llm.port}`,
      PROVIDER_TIMEOUT_MS: '20000',
      LOG_LEVEL: 'warn',
    },
  });
}

/** The webhook's agent, made through the agent service (its LLM credential on the stand-in); returns its id. */
async function createHookAgent(agentService: ServiceProcess, llm: FakeLlm, key: string): Promise<string> {
  const cred = await request(agentService.url)
    .post('/v3/providers/credentials')
    .set('x-api-key', key)
    .send({
      name: 'local',
      provider_id: 'openai',
      credentials: { api_key: 'sk-test-provider-key', base_url: llm.baseUrl },
    });
  const agent = await request(agentService.url).post('/v3/agents/').set('x-api-key', key).send({
    name: 'Hook agent',
    system_prompt: 'You handle events.',
    provider_id: 'openai',
    model: 'gpt-4o-mini',
    llm_credential_id: cred.body.credential_id,
  });
  if (agent.status !== 201) throw new Error(`agent create: ${agent.status} ${agent.text}`);
  return String(agent.body.agent_id);
}

/** The stack's `startWorker`: starts a worker process on the stack's database, queues and agent service. */
function workerStarter(s: {
  opts: StackOptions;
  /** Every worker started is added here (the stack's `workers`, stopped by `close`). */
  workers: ServiceProcess[];
  dbs: TestDatabases;
  redisUrl: string;
  prefix: string;
  agentService: ServiceProcess;
  internalSecret: string;
}): (extraEnv?: Record<string, string>) => Promise<ServiceProcess> {
  return async (extraEnv: Record<string, string> = {}) => {
    const w = await startServiceProcess({
      script: WORKER_MAIN,
      env: {
        MONGODB_URI: testInfra.mongoUri,
        MONGODB_DB: s.dbs.conn.name,
        REDIS_URL: s.redisUrl,
        QUEUE_PREFIX: s.prefix,
        AGENT_SERVICE_URL: s.agentService.url,
        INTERNAL_SERVICE_SECRET: s.internalSecret,
        SCHEDULE_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn',
        ...s.opts.workerEnv,
        ...extraEnv,
      },
    });
    s.workers.push(w);
    return w;
  };
}

/** Stops the workers, the queues, the agent service and the LLM stand-in, then drops the databases. */
async function closeTriggerStack(r: {
  workers: ServiceProcess[];
  stats: WebhookStats;
  testQueues: TestQueues;
  redis: RedisConnection;
  agentService: ServiceProcess;
  llm: FakeLlm;
  dbs: TestDatabases;
  agentDb: string;
}): Promise<void> {
  await Promise.all(r.workers.map((w) => w.stop(2_000)));
  // The run statistics written later (coalesced) go now, not after this file's environment is gone.
  await r.stats.flush().catch(() => undefined);
  await r.testQueues.close();
  r.redis.disconnect();
  await r.agentService.stop();
  await r.llm.close();
  await r.dbs.conn
    .useDb(r.agentDb)
    .dropDatabase()
    .catch(() => undefined);
  await r.dbs.cleanup();
}
