import { Counter, Gauge, type Registry } from 'prom-client';

import type { Logger } from '@platform/logger';
import type { Queue } from '@platform/queue';
import {
  createRunRecovery,
  enqueueCallback,
  executionJobs,
  executionRunStore,
  type CallbackJob,
  type EnqueueOptions,
  type ExecutionRepository,
  type RecoverySweep,
  type RunQueues,
  type RunStats,
} from '@platform/scheduling';
import type { Unit } from '@platform/service';

export interface RunRecoveryUnitDeps {
  executions: ExecutionRepository;
  queues: RunQueues;
  enqueue: EnqueueOptions;
  stats: { webhooks: RunStats; schedules: RunStats };
  logger: Logger;
  intervalMs: number;
  queuedAfterMs: number;
  runningAfterMs: number;
  maxRecoveries: number;
  clock?: () => Date;
  /** Gets the outbox's metrics (see `outboxMetrics`). */
  registry?: Registry;
  /** The completion callbacks' queue: a run the outbox ends (abandoned) is called back like any ended run. */
  callbacks?: Queue<CallbackJob>;
}

/**
 * `outbox_backlog_runs`: runs the last sweep found unfinished past their thresholds (at most one batch; 0 when all
 * runs are moving); `outbox_runs_total{action}`: runs enqueued (job missing), recovered under a new job, abandoned.
 */
export function outboxMetrics(registry: Registry) {
  const backlog = new Gauge({
    name: 'outbox_backlog_runs',
    help: 'Unfinished runs past their thresholds found by the last outbox sweep (at most one batch).',
    registers: [registry],
  });
  const moved = new Counter({
    name: 'outbox_runs_total',
    help: 'Runs the outbox put back on a queue or gave up, by action.',
    labelNames: ['action'],
    registers: [registry],
  });
  return (t: RecoverySweep) => {
    backlog.set(t.checked);
    if (t.enqueued) moved.inc({ action: 'enqueued' }, t.enqueued);
    if (t.recovered) moved.inc({ action: 'recovered' }, t.recovered);
    if (t.abandoned) moved.inc({ action: 'abandoned' }, t.abandoned);
  };
}

/**
 * The scheduler's outbox: the shared recovery rule (libs/scheduling run-recovery) over its executions and run
 * queues, on a timer. A run acknowledged while Redis was down, lost with Redis's data, or whose job died while the
 * run had not ended is put back on its queue; `stop` ends the timer.
 */
export function startRunRecovery(deps: RunRecoveryUnitDeps): Unit & { sweep: ReturnType<typeof createRunRecovery> } {
  const store = executionRunStore(deps.executions, (exec) => {
    if (exec.webhook_id) deps.stats.webhooks.outcome(exec.webhook_id, false);
    if (exec.schedule_id) deps.stats.schedules.ran(exec.schedule_id, new Date(exec.triggered_at), false);
    if (deps.callbacks)
      void enqueueCallback(deps.callbacks, exec, deps.enqueue.timeoutMs).catch((err: unknown) =>
        deps.logger.warn('callback of an abandoned run not queued', {
          execution_id: exec.id,
          err: (err as Error).message,
        }),
      );
  });
  const sweep = createRunRecovery({
    store,
    jobs: executionJobs(deps.queues, deps.enqueue, (id) => deps.executions.get(id)),
    clock: deps.clock ?? (() => new Date()),
    logger: deps.logger,
    queuedAfterMs: deps.queuedAfterMs,
    runningAfterMs: deps.runningAfterMs,
    maxRecoveries: deps.maxRecoveries,
  });
  const observe = deps.registry ? outboxMetrics(deps.registry) : undefined;
  const timer = setInterval(() => void sweep().then((t) => observe?.(t)), deps.intervalMs);
  return { name: 'run recovery', sweep, stop: () => clearInterval(timer) };
}
