import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

import { withLogContext, type Logger } from '@platform/logger';
import {
  createQueue,
  createWorker,
  type Job,
  type Queue,
  type RedisConnection,
  type TracedJob,
  type Worker,
  type WorkerSettings,
} from '@platform/queue';

import { RetryableRunError } from './runs/run-errors';
import { logStoreWait, waitingForStores, type StoreBackoff } from './store-wait';

/** One queue this process consumes. */
export interface QueueConsumer<T> {
  name: string;
  /** `token`: the job's lock, to park it (moveToDelayed) without spending an attempt. */
  process: (job: Job<T>, token?: string) => Promise<void>;
  /** Called when BullMQ gives a job up for good (attempts exhausted, stalled too often, or a final error). */
  giveUp?: (job: Job<T>, reason: string) => Promise<void>;
  settings?: Partial<WorkerSettings>;
}

export interface ConsumerDeps {
  connection: RedisConnection;
  consumers: QueueConsumer<never>[];
  registry: Registry;
  logger: Logger;
  settings: WorkerSettings;
  /** The process counts as dead when a consumer has not been connected for this long. */
  staleMs: number;
  /** Waits of a job while a store is unreachable (store-wait.ts). */
  storeBackoff: StoreBackoff;
  now?: () => number;
}

export interface Consumers {
  workers: Worker[];
  queues: Queue[];
  alive: () => boolean;
  close: () => Promise<void>;
}

/**
 * Runs a job inside a log context naming the request that queued it (`request_id` of the job data, see `traced` in
 * libs/queue), else the job itself: every line the job writes, and every job and call it makes, carry that id.
 */
function inJobContext<T>(queue: string, process: (job: Job<T>, token?: string) => Promise<void>) {
  return (job: Job<T>, token?: string): Promise<void> => {
    const given = (job.data as TracedJob | undefined)?.request_id;
    const requestId = typeof given === 'string' && given !== '' ? given : `job:${queue}:${String(job.id)}`;
    return withLogContext({ requestId, queue, job_id: job.id }, () => process(job, token));
  };
}

/**
 * The queue consumers with their metrics and a liveness signal that fails when this process stopped consuming
 * (a worker closed, or cut off from Redis for longer than `staleMs`), not merely when the process is up.
 */
export function startConsumers(deps: ConsumerDeps): Consumers {
  const now = deps.now ?? Date.now;
  const stalled = new Counter({
    name: 'queue_jobs_stalled_total',
    help: 'Jobs found stalled (their worker died or hung), by queue.',
    labelNames: ['queue'],
    registers: [deps.registry],
  });
  const workers: Worker[] = [];
  const queues: Queue[] = [];
  for (const c of deps.consumers as QueueConsumer<unknown>[]) {
    const processor = inJobContext(
      c.name,
      waitingForStores(c.process, deps.storeBackoff, logStoreWait(deps.logger, c.name)),
    );
    const worker = createWorker<unknown>(c.name, processor, deps.connection, { ...deps.settings, ...c.settings });
    queues.push(createQueue<unknown>(c.name, deps.connection, {}, deps.settings.prefix));
    worker.on('stalled', (jobId) => {
      stalled.inc({ queue: c.name });
      deps.logger.warn('job stalled; redelivering', { queue: c.name, job_id: jobId });
    });
    worker.on('failed', (job, err) => {
      if (!job || !c.giveUp) return;
      const final = !(err instanceof RetryableRunError) || job.attemptsMade >= (job.opts.attempts ?? 1);
      if (final)
        void c
          .giveUp(job, err.message)
          .catch((e: unknown) => deps.logger.error('give-up failed', { queue: c.name, err: e }));
    });
    worker.on('error', (err) => deps.logger.error('worker error', { queue: c.name, err }));
    workers.push(worker);
  }
  let lastConnected = now();
  const beat = setInterval(() => {
    if (deps.connection.status === 'ready' && workers.every((w) => w.isRunning())) lastConnected = now();
  }, 1_000);
  beat.unref();

  new Gauge({
    name: 'queue_jobs',
    help: 'Jobs by queue and state (waiting is the queue depth; delayed includes the next cron fires).',
    labelNames: ['queue', 'state'],
    registers: [deps.registry],
    async collect() {
      for (const q of queues) {
        const counts = await q
          .getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized')
          .catch(() => null);
        for (const [state, n] of Object.entries(counts ?? {})) this.set({ queue: q.name, state }, n);
      }
    },
  });
  return {
    workers,
    queues,
    alive: () => workers.every((w) => w.isRunning()) && now() - lastConnected < deps.staleMs,
    async close() {
      clearInterval(beat);
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

/** Metrics of the runs themselves, by kind (agent, http or task) and outcome. */
export function runMetrics(registry: Registry) {
  const latency = new Histogram({
    name: 'run_duration_seconds',
    help: 'Duration of a run attempt by kind and outcome.',
    labelNames: ['kind', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'run_attempts_total',
    help: 'Run attempts by kind and outcome.',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  return (kind: 'agent' | 'http' | 'task') => (outcome: string, seconds: number) => {
    latency.observe({ kind, outcome }, seconds);
    attempts.inc({ kind, outcome });
  };
}

/** Cron fires that did not run because an earlier fire of the same schedule was taken after they fell due. */
export function fireMetrics(registry: Registry) {
  const coalesced = new Counter({
    name: 'schedule_fires_coalesced_total',
    help: 'Cron fires not run because the fire queue was behind (an earlier fire of the schedule was taken after they fell due).',
    registers: [registry],
  });
  return (count: number) => coalesced.inc(count);
}

/** Completion callback attempts by outcome (`delivered`, `retry`: tried again later, `failed`: given up). */
export function callbackMetrics(registry: Registry) {
  const attempts = new Counter({
    name: 'callback_attempts_total',
    help: 'Completion callback attempts by outcome (delivered, retry, failed: the delivery was given up).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  return (outcome: 'delivered' | 'retry' | 'failed') => attempts.inc({ outcome });
}
