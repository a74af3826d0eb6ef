import {
  DelayedError,
  Queue,
  UnrecoverableError,
  Worker,
  type JobsOptions,
  type Processor,
  type RepeatStrategy,
  type WorkerOptions,
} from 'bullmq';
import IORedis from 'ioredis';

import { currentRequestId } from '@platform/logger';

import { redisChangeBus, type ChangeBus } from './change-bus';
import { openRedis, queuePrefix, type RedisConnection } from './connection';

export { DelayedError, Queue, UnrecoverableError, Worker, IORedis };
export { isCluster, openRedis, queuePrefix, type RedisConnection } from './connection';
export type { Job, JobsOptions, JobSchedulerJson, Processor, RepeatOptions, RepeatStrategy } from 'bullmq';

/** The queues to the worker: runs and fires from the scheduler, inference tasks from the agent service. */
export const QUEUE_NAMES = {
  agentRuns: 'agent-runs',
  httpCalls: 'http-calls',
  scheduleFires: 'schedule-fires',
  inferenceTasks: 'inference-tasks',
  callbacks: 'run-callbacks',
} as const;

/**
 * A connection for producers (API processes). It fails fast while Redis is down (no offline queue, one retry),
 * so a request never hangs on Redis and the caller can fall back, e.g. leave an execution queued for a sweeper.
 */
export function producerConnection(url: string): RedisConnection {
  return openRedis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 });
}

/** A connection for workers: BullMQ needs `maxRetriesPerRequest: null` so blocking commands survive reconnects. */
export function workerConnection(url: string): RedisConnection {
  return openRedis(url, { maxRetriesPerRequest: null, enableOfflineQueue: true, connectTimeout: 5_000 });
}

/** Bounded retention of finished jobs: the executions collection, not Redis, is the record of runs. */
export const defaultJobOptions: JobsOptions = {
  attempts: 1,
  removeOnComplete: { count: 1_000, age: 24 * 3600 },
  removeOnFail: { count: 5_000, age: 7 * 24 * 3600 },
};

/** Key prefix of every queue in Redis; deployments (and test files) sharing one Redis use different prefixes. */
export const DEFAULT_PREFIX = 'bull';

/** `repeatStrategy` computes job schedulers' fire times (cron queues); producers and workers must use the same. */
export function createQueue<T>(
  name: string,
  connection: RedisConnection,
  jobOptions: JobsOptions = {},
  prefix = DEFAULT_PREFIX,
  repeatStrategy?: RepeatStrategy,
): Queue<T> {
  return new Queue<T>(name, {
    connection,
    prefix: queuePrefix(connection, prefix, name),
    defaultJobOptions: { ...defaultJobOptions, ...jobOptions },
    ...(repeatStrategy ? { settings: { repeatStrategy } } : {}),
  });
}

export interface WorkerSettings {
  concurrency?: number;
  /** How long a job's lock lasts without renewal; a worker that dies loses its jobs to the stalled check after it. */
  lockDuration?: number;
  stalledInterval?: number;
  /** A job that stalls more often than this is failed instead of retried forever. */
  maxStalledCount?: number;
  prefix?: string;
  /** For queues fed by job schedulers: the worker computes each next fire when it takes the current one. */
  repeatStrategy?: RepeatStrategy;
  /** For jobs added with `backoff: {type: <custom>}`: the wait (ms) after failed attempt `attemptsMade` (1-based). */
  backoffStrategy?: (attemptsMade: number) => number;
}

/** A BullMQ worker with production settings: stalled-job detection and bounded retention. */
export function createWorker<T>(
  name: string,
  processor: Processor<T>,
  connection: RedisConnection,
  s: WorkerSettings = {},
): Worker<T> {
  const opts: WorkerOptions = {
    connection,
    prefix: queuePrefix(connection, s.prefix ?? DEFAULT_PREFIX, name),
    concurrency: s.concurrency ?? 8,
    lockDuration: s.lockDuration ?? 60_000,
    stalledInterval: s.stalledInterval ?? 30_000,
    maxStalledCount: s.maxStalledCount ?? 1,
    removeOnComplete: defaultJobOptions.removeOnComplete as { count: number; age: number },
    removeOnFail: defaultJobOptions.removeOnFail as { count: number; age: number },
    ...(s.repeatStrategy || s.backoffStrategy
      ? {
          settings: {
            ...(s.repeatStrategy ? { repeatStrategy: s.repeatStrategy } : {}),
            ...(s.backoffStrategy ? { backoffStrategy: s.backoffStrategy } : {}),
          },
        }
      : {}),
  };
  return new Worker<T>(name, processor, opts);
}

/** Thrown when Redis did not take a job in time. */
export class EnqueueTimeoutError extends Error {
  constructor(ms: number) {
    super(`queue did not accept the job within ${ms} ms`);
    this.name = 'EnqueueTimeoutError';
  }
}

/**
 * Settles like `work`, or rejects with EnqueueTimeoutError after `ms`. BullMQ waits for a connection indefinitely,
 * which an HTTP request must not; what Redis does after the deadline must be harmless (idempotent job ids).
 */
export async function within<R>(ms: number, work: Promise<R>): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EnqueueTimeoutError(ms)), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a job carries besides its own data: the id of the request that queued it, for the consumer's log lines. */
export interface TracedJob {
  request_id?: string;
}

/** `data` with the current request's id (when there is one and the data is an object that names none). */
export function traced<T>(data: T): T {
  const requestId = currentRequestId();
  if (!requestId || data === null || typeof data !== 'object' || Array.isArray(data) || 'request_id' in data)
    return data;
  return { ...data, request_id: requestId };
}

/** Adds a job, carrying the current request id (`traced`), or fails within `ms` (see `within`); the job id. */
export async function addWithin<T>(
  queue: Queue<T>,
  ms: number,
  name: string,
  data: T,
  opts?: JobsOptions,
): Promise<string> {
  const job = await within(ms, (queue as unknown as Queue<unknown>).add(name, traced(data), opts));
  return String(job.id);
}

/** Runs every close; resolves false when they did not all finish within `ms` (the caller then exits anyway). */
export async function closeWithin(ms: number, ...closers: (() => Promise<unknown>)[]): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const done = Promise.allSettled(closers.map((c) => c())).then(() => true as const);
  const result = await Promise.race([done, timeout]);
  clearTimeout(timer);
  return result;
}

/** True when Redis answers PING within `timeoutMs`. For readiness checks. */
export async function pingRedis(conn: RedisConnection, timeoutMs = 1_000): Promise<boolean> {
  const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
  return Promise.race([
    conn.ping().then(
      (r) => r === 'PONG',
      () => false,
    ),
    timer,
  ]);
}

/** Drops the connection and resolves once it has ended (or after `timeoutMs`), so callers see `status === 'end'`. */
export async function disconnectRedis(conn: RedisConnection, timeoutMs = 2_000): Promise<void> {
  if (conn.status === 'end') return;
  const ended = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    conn.once('end', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  conn.disconnect();
  await ended;
}
export {
  localChangeBus,
  localChangeBusOf,
  redisChangeBus,
  type ChangeBus,
  type RedisChangeBusOptions,
} from './change-bus';

/**
 * A change bus over Redis pub/sub with a subscriber connection of its own (subscriber mode), disconnected when the
 * bus is closed. Its errors are left to the publisher's connection to report; a change not announced goes to
 * `onError`.
 */
export function openRedisChangeBus(opts: {
  url: string;
  publisher: RedisConnection;
  channel: string;
  onError?: (err: Error) => void;
}): ChangeBus {
  const subscriber = workerConnection(opts.url);
  subscriber.on('error', () => undefined); // the publisher's connection reports outages
  const bus = redisChangeBus({ publisher: opts.publisher, subscriber, channel: opts.channel, onError: opts.onError });
  return {
    ...bus,
    async close() {
      await bus.close();
      subscriber.disconnect();
    },
  };
}
export { createReadCache, plainCopy, type ReadCache, type ReadCacheOptions } from './read-cache';
export {
  createConcurrencyGate,
  LIMIT_REPUBLISH_MS,
  limitKeys,
  limitPublisher,
  republishLimits,
  startLimitRepublisher,
  type ConcurrencyGate,
  type ConcurrencyGateOptions,
  type GateAnswer,
  type GateSlot,
  type LimitPublisher,
  type LimitRepublisherOptions,
} from './concurrency-gate';
