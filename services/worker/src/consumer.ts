import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import {
  createQueue,
  createWorker,
  QUEUE_NAMES,
  type IORedis,
  type Job,
  type Queue,
  type Worker,
  type WorkerSettings,
} from '@platform/queue';
import type { Logger } from '@platform/logger';
import type { AgentRunJob } from '@platform/scheduling';
import { RetryableRunError } from './runs/agent-run.processor';

export interface ConsumerDeps {
  connection: IORedis;
  process: (job: Job<AgentRunJob>) => Promise<void>;
  giveUp: (executionId: string, reason: string) => Promise<void>;
  registry: Registry;
  logger: Logger;
  settings: WorkerSettings;
  /** The consumer counts as dead when it has not been connected for this long. */
  staleMs: number;
  now?: () => number;
}

/**
 * The `agent-runs` consumer with its metrics and a liveness signal that fails when the worker stopped
 * consuming (closed, or cut off from Redis for longer than `staleMs`), not merely when the process is up.
 */
export function startConsumer(deps: ConsumerDeps): { worker: Worker<AgentRunJob>; queue: Queue<AgentRunJob>; alive: () => boolean } {
  const now = deps.now ?? Date.now;
  const worker = createWorker<AgentRunJob>(QUEUE_NAMES.agentRuns, deps.process, deps.connection, deps.settings);
  const queue = createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, deps.connection, {}, deps.settings.prefix);
  let lastConnected = now();
  const beat = setInterval(() => {
    if (deps.connection.status === 'ready' && worker.isRunning()) lastConnected = now();
  }, 1_000);
  beat.unref();

  const stalled = new Counter({ name: 'agent_runs_stalled_total', help: 'Jobs found stalled (their worker died or hung).', registers: [deps.registry] });
  worker.on('stalled', (jobId) => {
    stalled.inc();
    deps.logger.warn('job stalled; redelivering', { job_id: jobId });
  });
  worker.on('failed', (job, err) => {
    if (!job) return;
    const final = !(err instanceof RetryableRunError) || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (final) void deps.giveUp(job.data.execution_id, err.message).catch((e: unknown) => deps.logger.error('give-up failed', { err: e }));
  });
  worker.on('error', (err) => deps.logger.error('worker error', { err }));

  new Gauge({
    name: 'agent_runs_jobs',
    help: 'Jobs of the agent-runs queue by state (waiting is the queue depth).',
    labelNames: ['state'],
    registers: [deps.registry],
    async collect() {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized').catch(() => null);
      for (const [state, n] of Object.entries(counts ?? {})) this.set({ state }, n);
    },
  });
  return { worker, queue, alive: () => worker.isRunning() && now() - lastConnected < deps.staleMs };
}

/** Metrics of the runs themselves. */
export function runMetrics(registry: Registry) {
  const latency = new Histogram({
    name: 'agent_run_duration_seconds',
    help: 'Duration of an agent run attempt by outcome.',
    labelNames: ['outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const attempts = new Counter({ name: 'agent_run_attempts_total', help: 'Agent run attempts by outcome.', labelNames: ['outcome'], registers: [registry] });
  return (outcome: string, seconds: number) => {
    latency.observe({ outcome }, seconds);
    attempts.inc({ outcome });
  };
}
