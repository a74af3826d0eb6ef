import type { Logger } from '@platform/logger';
import type { ExecutionRecord } from '@platform/scheduling';

/** A place for one run made at once: give it the run (stored already claimed), or release it unused. */
export interface DirectPlace {
  start(exec: ExecutionRecord): void;
  release(): void;
}

/** Runs made at once by the code that created them (cron fires of HTTP schedules), at most `limit` in flight. */
export interface DirectRuns {
  /** A place, or null while `limit` runs are in flight (the run then goes through its queue). */
  reserve(): DirectPlace | null;
  /** Resolves once every run in flight has ended (shutdown, after the consumers stopped taking jobs). */
  settle(): Promise<void>;
}

/**
 * Runs made at once, off the job that created them: the fire's job ends when its execution is stored, and the run
 * goes on beside the other fires, holding none of their slots. A run that throws (its outcome could not be stored
 * for a reason other than an outage) is logged; it stays `running` until the recovery rule takes it
 * (libs/scheduling run-recovery), as a run whose worker died does.
 */
export function createDirectRuns(
  run: (exec: ExecutionRecord) => Promise<void>,
  limit: number,
  logger: Logger,
): DirectRuns {
  const inFlight = new Set<Promise<void>>();
  let reserved = 0;
  return {
    reserve() {
      if (reserved >= limit) return null;
      reserved++;
      let used = false;
      const free = () => {
        if (!used) reserved--;
        used = true;
      };
      return {
        start(exec) {
          if (used) return;
          const p: Promise<void> = run(exec)
            .catch((err: unknown) => {
              logger.error('run made by its fire stopped; left to recovery', { execution_id: exec.id, err });
            })
            .finally(() => {
              inFlight.delete(p);
              reserved--;
            });
          used = true;
          inFlight.add(p);
        },
        release: free,
      };
    },
    async settle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
