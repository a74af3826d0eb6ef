import type { Connection } from '@platform/db';
import type { Logger } from '@platform/logger';
import type { Queue } from '@platform/queue';
import {
  createReconciler,
  createScheduleRepository,
  type ExecutionRepository,
  type FireJob,
} from '@platform/scheduling';
import type { Unit } from '@platform/service';

export interface ReconcilerUnitDeps {
  db: Connection;
  executions: ExecutionRepository;
  fires: Queue<FireJob>;
  logger: Logger;
  intervalMs: number;
  catchUpMs: number;
  enqueueTimeoutMs: number;
}

/**
 * The reconciler on a timer: MongoDB (the truth) into Redis's job schedulers, at start and every `intervalMs`, so a
 * flushed or restarted Redis fires every active schedule again. A failed pass is logged; the next one retries.
 */
export function startReconciler(deps: ReconcilerUnitDeps): Unit {
  const reconcile = createReconciler({
    schedules: createScheduleRepository(deps.db),
    executions: deps.executions,
    queue: deps.fires,
    clock: () => new Date(),
    logger: deps.logger,
    catchUpMs: deps.catchUpMs,
    enqueueTimeoutMs: deps.enqueueTimeoutMs,
  });
  const safely = () =>
    reconcile().catch((err: unknown) =>
      deps.logger.warn('reconcile failed; next interval retries', { err: (err as Error).message }),
    );
  const timer = setInterval(() => void safely(), deps.intervalMs);
  void safely();
  return { name: 'reconciler', stop: () => clearInterval(timer) };
}
