import type { Logger } from '@platform/logger';
import type { ExecutionRecord, ExecutionRepository } from '@platform/scheduling';

export interface OutboxDeps {
  executions: ExecutionRepository;
  enqueue: (exec: ExecutionRecord) => Promise<unknown>;
  /** True when the run queue holds a job for the execution (waiting, delayed, active...). */
  hasJob: (exec: ExecutionRecord) => Promise<boolean>;
  clock: () => Date;
  logger: Logger;
  /** Executions younger than this are left to the request that created them. */
  graceMs: number;
  batch?: number;
}

/**
 * The outbox: an execution still `queued` after the grace whose job the queue does not hold (Redis was down when
 * it was triggered, or lost its data) is put on the queue again. Job id = execution id, so a double add is one
 * job, and the worker's claim runs an execution at most once. A sweep stops at the first refusal.
 */
export function createOutboxSweeper(deps: OutboxDeps) {
  let running = false;
  return async (): Promise<number> => {
    if (running) return 0;
    running = true;
    let moved = 0;
    try {
      const due = await deps.executions.pendingEnqueue(new Date(deps.clock().getTime() - deps.graceMs), deps.batch ?? 200);
      for (const exec of due) {
        if (await deps.hasJob(exec)) continue;
        await deps.enqueue(exec);
        moved++;
      }
    } catch (err) {
      deps.logger.warn('outbox sweep stopped', { err: (err as Error).message, moved });
    } finally {
      running = false;
    }
    if (moved > 0) deps.logger.info('outbox enqueued executions', { moved });
    return moved;
  };
}
