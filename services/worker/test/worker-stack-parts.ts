import { Registry } from 'prom-client';

import { createOutboundClient, type OutboundClient } from '@platform/outbound';
import {
  createQueue,
  producerConnection,
  QUEUE_NAMES,
  within,
  workerConnection,
  type Queue,
  type RedisConnection,
} from '@platform/queue';
import {
  createRepeatStrategy,
  type AgentRunJob,
  type CallbackJob,
  type FireJob,
  type RunQueues,
} from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';
import {
  captureLogger,
  startLocalServer,
  type LocalHandler,
  type LocalServer,
  type TestDatabases,
} from '@platform/testing';

import { createWorkerRuntime, type RuntimeConfig, type WorkerRuntime } from '../src/runtime';
import { startDoor, type Door } from './tcp-door';
import type { StackOptions } from './worker-stack';

/** The pieces of startWorkerStack (worker-stack.ts): its stand-ins, its queues, the runtime under test, its close. */

/** The default agent stand-in: answers as the agent service does, with the message echoed. */
const echoAgent: LocalHandler = (req, res) => {
  const body = req.json as { agent_id: string; session_id: string; message: string };
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({ response: `echo: ${body.message}`, session_id: body.session_id, agent_id: String(body.agent_id) }),
  );
};

export interface StandIns {
  agent: LocalServer;
  agentDoor: Door;
  setAgent(handler: LocalHandler): void;
  target: LocalServer;
  setTarget(handler: LocalHandler): void;
}

/**
 * The local servers standing in for what is outside the product: the agent service's inference endpoint (echoing by
 * default, behind a door) and a user's HTTP endpoint (answering `ok`); the setters replace their handlers.
 */
export async function startStandIns(): Promise<StandIns> {
  let agentHandler: LocalHandler = echoAgent;
  const agent = await startLocalServer((req, res) => agentHandler(req, res));
  const agentDoor = await startDoor(agent.port);
  let targetHandler: LocalHandler = (_req, res) => res.end('ok');
  const target = await startLocalServer((req, res) => targetHandler(req, res));
  return {
    agent,
    agentDoor,
    setAgent: (h) => {
      agentHandler = h;
    },
    target,
    setTarget: (h) => {
      targetHandler = h;
    },
  };
}

export interface StackQueues {
  producer: RedisConnection;
  /** The scheduler's producer queues under the prefix. */
  queues: RunQueues;
  fires: Queue<FireJob>;
  callbacks: Queue<CallbackJob>;
  /** All four (their errors ignored), emptied and closed by `closeWorkerStack`. */
  allQueues: Queue[];
}

/** The producer connection and the queues the scheduler writes to, under `prefix`. */
export function openQueues(redisUrl: string, prefix: string): StackQueues {
  const producer: RedisConnection = producerConnection(redisUrl);
  producer.on('error', () => undefined);
  const queues: RunQueues = {
    agentRuns: createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, producer, {}, prefix),
    httpCalls: createQueue<AgentRunJob>(QUEUE_NAMES.httpCalls, producer, {}, prefix),
  };
  const fires = createQueue<FireJob>(QUEUE_NAMES.scheduleFires, producer, {}, prefix, createRepeatStrategy());
  const callbacks = createQueue<CallbackJob>(QUEUE_NAMES.callbacks, producer, {}, prefix);
  const allQueues: Queue[] = [queues.agentRuns, queues.httpCalls, fires, callbacks];
  for (const q of allQueues) q.on('error', () => undefined);
  return { producer, queues, fires, callbacks, allQueues };
}

export interface RuntimeParts {
  redis: RedisConnection;
  outbound: OutboundClient;
  /** The worker's log lines. */
  lines: string[];
  runtime: WorkerRuntime;
}

/** The worker runtime under test (createWorkerRuntime), with its own Redis connection, outbound client and logger. */
export async function startRuntime(
  opts: StackOptions,
  s: {
    dbs: TestDatabases;
    redisUrl: string;
    prefix: string;
    internalSecret: string;
    box: SecretBox;
    agentDoor: Door;
    target: LocalServer;
  },
): Promise<RuntimeParts> {
  const redis = workerConnection(s.redisUrl);
  redis.on('error', () => undefined);
  const outbound = createOutboundClient({ allowHosts: `127.0.0.1:${s.target.port}` });
  const { logger, lines } = captureLogger('worker');
  const config: RuntimeConfig = {
    QUEUE_PREFIX: s.prefix,
    AGENT_SERVICE_URL: opts.agentServiceUrl ?? s.agentDoor.url,
    INTERNAL_SERVICE_SECRET: s.internalSecret,
    AGENT_RUN_TIMEOUT_MS: opts.agentRunTimeoutMs ?? 10_000,
    WORKER_CONCURRENCY: 8,
    AGENT_RUN_CONCURRENCY: 8,
    JOB_LOCK_MS: 30_000,
    STALLED_INTERVAL_MS: 30_000,
    LIVENESS_STALE_MS: 30_000,
    HTTP_MAX_RESPONSE_BYTES: opts.httpMaxResponseBytes ?? 5 * 1024 * 1024,
    FIRE_CONCURRENCY: 8,
    ENQUEUE_TIMEOUT_MS: 2_000,
    STORE_RETRY_BASE_MS: 100,
    STORE_RETRY_MAX_MS: 400,
    ...(opts.callbackDelaysMs ? { CALLBACK_RETRY_DELAYS_MS: opts.callbackDelaysMs } : {}),
    ...(opts.callbackTimeoutMs ? { CALLBACK_TIMEOUT_MS: opts.callbackTimeoutMs } : {}),
    ...(opts.fireDirectRuns !== undefined ? { FIRE_DIRECT_RUNS: opts.fireDirectRuns } : {}),
  };
  const runtime = await createWorkerRuntime({
    config,
    db: s.dbs.conn,
    redis,
    registry: new Registry(),
    logger,
    outbound,
    box: s.box,
  });
  return { redis, outbound, lines, runtime };
}

/** Stops the runtime, empties and closes the queues, then the connections, the stand-ins and the databases. */
export async function closeWorkerStack(r: {
  runtime: WorkerRuntime;
  allQueues: Queue[];
  outbound: OutboundClient;
  redis: RedisConnection;
  producer: RedisConnection;
  agentDoor: Door;
  agent: LocalServer;
  target: LocalServer;
  dbs: TestDatabases;
}): Promise<void> {
  await r.runtime.consumers.close();
  await within(10_000, r.runtime.settle()).catch(() => undefined);
  await r.runtime.flush();
  await Promise.all(r.runtime.queuesToClose.map((q) => q.close()));
  for (const q of r.allQueues) {
    await within(2_000, q.obliterate({ force: true })).catch(() => undefined);
    await within(2_000, q.close()).catch(() => undefined);
  }
  r.outbound.close();
  r.redis.disconnect();
  r.producer.disconnect();
  await r.agentDoor.shut();
  await r.agent.close();
  await r.target.close();
  await r.dbs.cleanup();
}
