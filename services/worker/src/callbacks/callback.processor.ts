import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { UnrecoverableError, type Job } from '@platform/queue';
import {
  attemptCallback,
  CALLBACK_ATTEMPTS,
  presentExecution,
  type CallbackJob,
  type ExecutionRepository,
} from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

export interface CallbackProcessorDeps {
  executions: Pick<ExecutionRepository, 'get' | 'recordDelivery'>;
  outbound: OutboundClient;
  /** Opens the sealed signing secret the run carries (the schedule secret box, shared with the scheduler). */
  box: SecretBox;
  clock: () => Date;
  logger: Logger;
  /** Waits before the 2nd, 3rd, ... attempts (the last repeats). */
  delaysMs: readonly number[];
  timeoutMs: number;
  /** Observes each attempt (metrics). */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'failed') => void;
}

/** The wait after failed attempt `n` (1-based) of a delivery. */
export const callbackDelay = (delaysMs: readonly number[], n: number): number =>
  delaysMs[Math.min(Math.max(n, 1), delaysMs.length) - 1] ?? 60_000;

/**
 * Delivers an ended run's completion callback (contract §8), one attempt per job attempt: reads the run (its target
 * came with it when it was created), signs and POSTs it through the outbound guard, records `delivery` on the run,
 * and fails the job when the receiver may answer better later (5xx, 429, timeout, network), so that BullMQ tries
 * again after `callbackDelay`. A refused address, any other answer, or the last attempt ends the delivery. Attempts
 * are counted on the run, so a job redelivered after a worker died does not get a sixth.
 */
export function createCallbackProcessor(deps: CallbackProcessorDeps) {
  const log = deps.logger.child({ module: 'callbacks' });
  return async (job: Job<CallbackJob>): Promise<void> => {
    const exec = await deps.executions.get(job.data.execution_id);
    // Removed since (retention, deletion), or delivered by an earlier holder of this job.
    if (!exec?.callback || exec.delivery?.delivered_at) return;
    const made = exec.delivery?.attempts ?? 0;
    if (made >= CALLBACK_ATTEMPTS) return;
    const attempt = made + 1;
    const now = deps.clock();
    const result = await attemptCallback(
      deps.outbound,
      { url: exec.callback.url, secret: deps.box.decrypt(exec.callback.secret) },
      exec.id,
      presentExecution(exec),
      now,
      deps.timeoutMs,
    );
    const again = !result.delivered && result.retryable && attempt < CALLBACK_ATTEMPTS;
    const delay = callbackDelay(deps.delaysMs, attempt);
    await deps.executions.recordDelivery(exec.id, {
      attempts: attempt,
      last_status: result.status,
      last_error: result.delivered ? null : result.error,
      delivered_at: result.delivered ? deps.clock() : null,
      next_attempt_at: again ? new Date(deps.clock().getTime() + delay) : null,
    });
    const context = { execution_id: exec.id, attempt, of: CALLBACK_ATTEMPTS, status: result.status };
    if (result.delivered) {
      deps.onAttempt?.('delivered');
      log.info('callback delivered', context);
      return;
    }
    deps.onAttempt?.(again ? 'retry' : 'failed');
    if (again) {
      log.warn('callback attempt failed; will retry', { ...context, error: result.error, in_ms: delay });
      throw new Error(`callback not delivered: ${result.error}`);
    }
    log.warn('callback not delivered; final', { ...context, error: result.error });
    throw new UnrecoverableError(`callback not delivered: ${result.error}`);
  };
}
