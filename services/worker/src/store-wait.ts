import { isUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DelayedError, type Job } from '@platform/queue';

/** Capped exponential backoff of a job waiting for a store: base, 2×base, ... up to max. */
export interface StoreBackoff {
  baseMs: number;
  maxMs: number;
}

/** Job data a waiting job carries: how many times in a row it has waited for a store. */
interface Waits {
  store_waits?: number;
}

/**
 * A store (MongoDB, Redis, or the agent service in front of its own) being unreachable is not a failure of the run:
 * the job waits, moved to delayed with capped backoff, and does not spend one of its attempts (those are for the
 * agent's or the endpoint's own failures). Any other error is the processor's to report as before.
 *
 * If Redis itself is gone, the job cannot be moved: its lock lapses and BullMQ redelivers it once Redis is back (and
 * the recovery rule covers a job Redis lost).
 */
export function waitingForStores<T>(
  process: (job: Job<T>, token?: string) => Promise<void>,
  backoff: StoreBackoff,
  onWait: (job: Job<T>, err: Error, delayMs: number) => void,
) {
  return async (job: Job<T>, token?: string): Promise<void> => {
    try {
      await process(job, token);
      if ((job.data as Waits).store_waits) await job.updateData({ ...job.data, store_waits: 0 }).catch(() => undefined);
    } catch (err) {
      if (!isUnavailableError(err) || token === undefined) throw err;
      const waits = ((job.data as Waits).store_waits ?? 0) + 1;
      const delayMs = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(waits - 1, 20));
      onWait(job, err as Error, delayMs);
      await job.updateData({ ...job.data, store_waits: waits });
      await job.moveToDelayed(Date.now() + delayMs, token);
      throw new DelayedError();
    }
  };
}

/** Logs a wait once per job and run of waits, not at every retry. */
export function logStoreWait(logger: Logger, queue: string) {
  return (job: Job<unknown>, err: Error, delayMs: number) => {
    const waits = ((job.data as Waits).store_waits ?? 0) + 1;
    if (waits === 1 || waits % 10 === 0)
      logger.warn('store unreachable; job waits without spending an attempt', {
        queue,
        job_id: job.id,
        waits,
        delay_ms: delayMs,
        err: err.message,
      });
  };
}
