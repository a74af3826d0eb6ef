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

/** The longest the sweeper rests after sweeps that found every queued run still on the queue. */
const MAX_IDLE_SKIPS = 15;

/**
 * The outbox: an execution still `queued` after the grace whose job the queue does not hold (Redis was down when
 * it was triggered, or lost its data) is put on the queue again. Job id = execution id, so a double add is one
 * job, and the worker's claim runs an execution at most once. A sweep stops at the first refusal.
 *
 * Each sweep reads one batch and resumes after it the next time, wrapping around at the end, so a backlog of
 * queued runs that are all on the queue (a busy worker pool) never hides a lost one behind it. After each round
 * over all queued runs that moved nothing, the sweeper rests for a growing number of intervals (up to 15): on
 * FerretDB each read scans every queued run.
 */
export function createOutboxSweeper(deps: OutboxDeps) {
  let running = false;
  let cursor: Date | undefined;
  let idle = 0;
  let skip = 0;
  let roundMoved = 0;
  return async (): Promise<number> => {
    if (running) return 0;
    if (skip > 0) {
      skip--;
      return 0;
    }
    running = true;
    let moved = 0;
    try {
      const batch = deps.batch ?? 200;
      const due = await deps.executions.pendingEnqueue(new Date(deps.clock().getTime() - deps.graceMs), batch, cursor);
      cursor = due.length < batch ? undefined : new Date(due[due.length - 1]!.triggered_at);
      for (const exec of due) {
        if (await deps.hasJob(exec)) continue;
        await deps.enqueue(exec);
        moved++;
      }
      roundMoved += moved;
      if (!cursor) {
        // A round over every queued run has ended: rest longer after each round that moved nothing.
        idle = roundMoved > 0 ? 0 : Math.min(idle + 1, MAX_IDLE_SKIPS);
        skip = idle > 1 ? idle : 0;
        roundMoved = 0;
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
