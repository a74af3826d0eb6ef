import type { Logger } from '@platform/logger';
import {
  createRunRecovery,
  executionJobs,
  executionRunStore,
  type EnqueueOptions,
  type ExecutionRepository,
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
  const timer = setInterval(() => void sweep(), deps.intervalMs);
  return { name: 'run recovery', sweep, stop: () => clearInterval(timer) };
}
