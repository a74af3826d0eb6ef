import type { Registry } from 'prom-client';

import { createAgentRunner, createTaskClient, type AgentRunner, type TaskClient } from '@platform/agent-client';
import type { Connection } from '@platform/db';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createConcurrencyGate, createQueue, QUEUE_NAMES, type Queue, type RedisConnection } from '@platform/queue';
import {
  CALLBACK_DELAYS_MS,
  CALLBACK_TIMEOUT_MS,
  createExecutionRepository,
  createFireReader,
  createRepeatStrategy,
  createScheduleRepository,
  createScheduleStats,
  createWebhookStats,
  enqueueCallback,
  enqueueRun,
  type AgentRunJob,
  type CallbackJob,
  type ExecutionRecord,
  type RunQueues,
} from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import { callbackDelay, createCallbackProcessor } from './callbacks/callback.processor';
import type { WorkerConfig } from './config';
import {
  callbackMetrics,
  fireMetrics,
  runMetrics,
  startConsumers,
  type Consumers,
  type QueueConsumer,
} from './consumer';
import { createFireProcessor } from './fires/fire.processor';
import { createAgentRunProcessor } from './runs/agent-run.processor';
import { createDirectRuns, type DirectRuns } from './runs/direct-runs';
import { createHttpDirectRun, createHttpRunProcessor, type HttpRunDeps } from './runs/http-run.processor';
import { createGiveUpHandler, type RunLimits } from './runs/run-lifecycle';
import { createTaskGiveUp, createTaskProcessor } from './tasks/task.processor';

export type RuntimeConfig = Pick<
  WorkerConfig,
  | 'QUEUE_PREFIX'
  | 'AGENT_SERVICE_URL'
  | 'INTERNAL_SERVICE_SECRET'
  | 'AGENT_RUN_TIMEOUT_MS'
  | 'WORKER_CONCURRENCY'
  | 'AGENT_RUN_CONCURRENCY'
  | 'JOB_LOCK_MS'
  | 'STALLED_INTERVAL_MS'
  | 'LIVENESS_STALE_MS'
  | 'HTTP_MAX_RESPONSE_BYTES'
  | 'FIRE_CONCURRENCY'
  | 'ENQUEUE_TIMEOUT_MS'
  | 'STORE_RETRY_BASE_MS'
  | 'STORE_RETRY_MAX_MS'
> &
  Partial<
    Pick<
      WorkerConfig,
      | 'CONCURRENCY_RECHECK_MS'
      | 'CONCURRENCY_LEASE_MS'
      | 'CALLBACK_RETRY_DELAYS_MS'
      | 'CALLBACK_TIMEOUT_MS'
      | 'CALLBACK_CONCURRENCY'
      | 'FIRE_DIRECT_RUNS'
    >
  >;

export interface RuntimeDeps {
  config: RuntimeConfig;
  /** The scheduler's database. */
  db: Connection;
  /** A worker connection (see libs/queue). */
  redis: RedisConnection;
  registry: Registry;
  logger: Logger;
  outbound: OutboundClient;
  /** Opens HTTP schedules' header values and the callback secrets runs carry. */
  box: SecretBox;
  /** Time for executions and for cron fire computation (tests move it). */
  clock?: () => Date;
  runAgent?: AgentRunner;
  /** The agent service's task calls (tests may point it elsewhere). */
  tasks?: TaskClient;
}

export interface WorkerRuntime {
  consumers: Consumers;
  /** Producer queues this process adds runs to. */
  queuesToClose: Queue[];
  /** Writes pending run statistics. */
  flush: () => Promise<unknown>;
  /** Resolves once the runs fires made at once have ended (after the consumers closed: no new ones start). */
  settle: () => Promise<void>;
}

/**
 * The gate of agents' and webhooks' `max_concurrency` (published by the agent service and the scheduler under the
 * same queue prefix). Limited runs are agent runs only (HTTP schedules have neither), so waiters are woken on
 * `agent-runs`; a waiter whose job cannot be found or promoted asks again at its next check.
 */
function runLimits(redis: RedisConnection, agentRuns: Queue<AgentRunJob>, config: RuntimeConfig): RunLimits {
  const recheckMs = config.CONCURRENCY_RECHECK_MS ?? 5_000;
  const leaseMs = config.CONCURRENCY_LEASE_MS ?? 120_000;
  return {
    // A waiter keeps its place in line while it asks at least this often (a busy queue may delay its checks).
    gate: createConcurrencyGate({
      redis,
      prefix: config.QUEUE_PREFIX,
      leaseMs,
      waitTtlMs: Math.max(60_000, 20 * recheckMs),
    }),
    recheckMs,
    leaseMs,
    wake: async (ids) => {
      await Promise.all(
        ids
          .map(async (id) => {
            const job = await agentRuns.getJob(id);
            if (job && (await job.isDelayed())) await job.promote();
          })
          .map((p) => p.catch(() => undefined)),
      );
    },
  };
}

/** The first retry delay of a run whose schedule or webhook sets none (it doubles per attempt). */
const RUN_BACKOFF_MS = 2_000;
/** FIRE_DIRECT_RUNS's default (config.ts). */
const DIRECT_RUNS = 256;

/**
 * HTTP schedules' runs: the `http-calls` processor, and the first attempts their fires make themselves
 * (FIRE_DIRECT_RUNS at once; 0: none), handing what follows to `http-calls`.
 */
function httpScheduleRuns(
  deps: Omit<HttpRunDeps, 'maxResponseBytes'>,
  runQueues: RunQueues,
  config: RuntimeConfig,
): { process: ReturnType<typeof createHttpRunProcessor>; direct: DirectRuns } {
  const http = { ...deps, maxResponseBytes: config.HTTP_MAX_RESPONSE_BYTES };
  const limit = config.FIRE_DIRECT_RUNS ?? DIRECT_RUNS;
  const enqueueOpts = { timeoutMs: config.ENQUEUE_TIMEOUT_MS, backoffMs: RUN_BACKOFF_MS };
  const run = createHttpDirectRun({ ...http, backoffMs: RUN_BACKOFF_MS }, (exec, opts) =>
    enqueueRun(runQueues, exec, { ...enqueueOpts, ...opts }),
  );
  return { process: createHttpRunProcessor(http), direct: createDirectRuns(run, limit, deps.logger) };
}

/**
 * The worker's consumers over the given connections: `schedule-fires` (cron fires → executions),
 * `agent-runs` (webhook triggers and agent schedules), `http-calls` (HTTP schedules) and `inference-tasks` (the agent
 * service's background chats). Assembly only.
 */
export async function createWorkerRuntime(deps: RuntimeDeps): Promise<WorkerRuntime> {
  const { config, db, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const executions = createExecutionRepository(db);
  const schedules = createScheduleRepository(db);
  await Promise.all([executions.init(), schedules.init()]);
  const fireReads = createFireReader({ schedules, clock: () => clock().getTime() });
  const stats = { webhooks: createWebhookStats(db, logger), schedules: createScheduleStats(db, logger) };
  const runQueues = {
    agentRuns: createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, deps.redis, {}, config.QUEUE_PREFIX),
    httpCalls: createQueue<AgentRunJob>(QUEUE_NAMES.httpCalls, deps.redis, {}, config.QUEUE_PREFIX),
  };
  const metrics = runMetrics(deps.registry);
  const storeBackoff = { baseMs: config.STORE_RETRY_BASE_MS, maxMs: config.STORE_RETRY_MAX_MS };
  const limits = runLimits(deps.redis, runQueues.agentRuns, config);
  const callbackQueue = createQueue<CallbackJob>(QUEUE_NAMES.callbacks, deps.redis, {}, config.QUEUE_PREFIX);
  const callbackDelays = (config.CALLBACK_RETRY_DELAYS_MS ?? CALLBACK_DELAYS_MS.join(',')).split(',').map(Number);
  const callbacks = (exec: ExecutionRecord) => enqueueCallback(callbackQueue, exec, config.ENQUEUE_TIMEOUT_MS);
  const life = { executions, stats, clock, logger, storeBackoff, limits, callbacks };
  const giveUp = createGiveUpHandler(life);
  const runAgent =
    deps.runAgent ??
    createAgentRunner({
      baseUrl: config.AGENT_SERVICE_URL,
      internalSecret: config.INTERNAL_SERVICE_SECRET,
      timeoutMs: config.AGENT_RUN_TIMEOUT_MS,
      logger,
    });

  const tasks =
    deps.tasks ??
    createTaskClient({
      baseUrl: config.AGENT_SERVICE_URL,
      internalSecret: config.INTERNAL_SERVICE_SECRET,
      timeoutMs: config.AGENT_RUN_TIMEOUT_MS,
      logger,
    });

  const http = { ...life, schedules: fireReads, outbound: deps.outbound, box: deps.box, onAttempt: metrics('http') };
  const httpRuns = httpScheduleRuns(http, runQueues, config);

  const consumers: QueueConsumer<never>[] = [
    {
      name: QUEUE_NAMES.inferenceTasks,
      process: createTaskProcessor({ tasks, logger, onAttempt: metrics('task') }),
      giveUp: createTaskGiveUp({ tasks, logger }),
      settings: { concurrency: config.AGENT_RUN_CONCURRENCY },
    },
    {
      name: QUEUE_NAMES.agentRuns,
      process: createAgentRunProcessor({ ...life, runAgent, onAttempt: metrics('agent') }),
      giveUp,
      settings: { concurrency: config.AGENT_RUN_CONCURRENCY },
    },
    {
      name: QUEUE_NAMES.httpCalls,
      process: httpRuns.process,
      giveUp,
    },
    {
      name: QUEUE_NAMES.callbacks,
      process: createCallbackProcessor({
        executions,
        outbound: deps.outbound,
        box: deps.box,
        clock,
        logger,
        delaysMs: callbackDelays,
        timeoutMs: config.CALLBACK_TIMEOUT_MS ?? CALLBACK_TIMEOUT_MS,
        onAttempt: callbackMetrics(deps.registry),
      }),
      settings: {
        concurrency: config.CALLBACK_CONCURRENCY ?? 32,
        backoffStrategy: (attemptsMade: number) => callbackDelay(callbackDelays, attemptsMade),
      },
    },
    {
      name: QUEUE_NAMES.scheduleFires,
      process: createFireProcessor({
        schedules: fireReads,
        executions,
        enqueue: (exec) =>
          enqueueRun(runQueues, exec, { timeoutMs: config.ENQUEUE_TIMEOUT_MS, backoffMs: RUN_BACKOFF_MS }),
        direct: httpRuns.direct,
        callbacks,
        clock,
        logger,
        onCoalesced: fireMetrics(deps.registry),
      }),
      settings: { concurrency: config.FIRE_CONCURRENCY, repeatStrategy: createRepeatStrategy(() => clock().getTime()) },
    },
  ] as QueueConsumer<never>[];

  return {
    consumers: startConsumers({
      connection: deps.redis,
      consumers,
      registry: deps.registry,
      logger,
      settings: {
        prefix: config.QUEUE_PREFIX,
        concurrency: config.WORKER_CONCURRENCY,
        lockDuration: config.JOB_LOCK_MS,
        stalledInterval: config.STALLED_INTERVAL_MS,
      },
      staleMs: config.LIVENESS_STALE_MS,
      storeBackoff,
    }),
    queuesToClose: [runQueues.agentRuns, runQueues.httpCalls, callbackQueue],
    flush: () => Promise.all([stats.webhooks.flush(), stats.schedules.flush()]),
    settle: () => httpRuns.direct.settle(),
  };
}
