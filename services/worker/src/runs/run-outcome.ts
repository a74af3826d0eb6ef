import { isUnavailableError, ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { ExecutionRecord, RunOutcome } from '@platform/scheduling';

import type { StoreBackoff } from '../store-wait';
import { RetryableRunError } from './run-errors';
import type { AttemptResult, RunLifecycleDeps } from './run-lifecycle.types';

/** The outcome of a run that failed: no answer kept, the reason, the status when there was one. */
export const failedOutcome = (error: string, status: number | null = null): RunOutcome => ({
  success: false,
  response_status: status,
  response_output: null,
  error_message: error,
});

/**
 * Writes an outcome that is already known (the model or endpoint has answered) until the database takes it: giving
 * up here would run the attempt again. Other errors are not retried.
 */
async function untilStored<R>(
  write: () => Promise<R>,
  backoff: StoreBackoff,
  log: Logger,
  executionId: string,
): Promise<R> {
  for (let tries = 0; ; tries++) {
    try {
      return await write();
    } catch (err) {
      if (!isUnavailableError(err)) throw err;
      const delay = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(tries, 20));
      if (tries === 0 || tries % 10 === 0)
        log.warn('database unreachable; holding the outcome until it can be stored', {
          execution_id: executionId,
          tries: tries + 1,
        });
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/**
 * Statistics of the run's origin once it has ended: a webhook's trigger was counted on acceptance, so only its
 * success is left; a schedule's run is counted now, in one write (`last_run_at` = when the fire or run-now was handled).
 */
function recordOutcome(deps: Pick<RunLifecycleDeps, 'stats'>, exec: ExecutionRecord, success: boolean): void {
  if (exec.webhook_id) deps.stats.webhooks.outcome(exec.webhook_id, success);
  if (exec.schedule_id) deps.stats.schedules.ran(exec.schedule_id, new Date(exec.triggered_at), success);
}

/**
 * Queues the callback of a run that ended with one and has no delivery yet. Redis not taking it makes the job wait
 * as for any store (store-wait.ts): it comes back, finds its run ended, and queues the callback then.
 */
export async function queueCallback(
  deps: Pick<RunLifecycleDeps, 'callbacks'>,
  ended: ExecutionRecord | null,
): Promise<void> {
  if (!deps.callbacks || !ended?.callback || (ended.delivery?.attempts ?? 0) > 0) return;
  try {
    await deps.callbacks(ended);
  } catch (err) {
    throw new ServiceUnavailableError(err, `completion callback not queued: ${(err as Error).message}`);
  }
}

/**
 * Runs one attempt of a claimed run; what it came to, or the store error that leaves the job to resume it
 * (`interrupted` keeps the attempt to resume on the job first).
 */
export async function attemptOnce(
  exec: ExecutionRecord,
  attempt: (exec: ExecutionRecord) => Promise<AttemptResult>,
  log: Logger,
  interrupted: (attempt: number) => Promise<unknown>,
): Promise<AttemptResult> {
  try {
    return await attempt(exec);
  } catch (err) {
    // Claimed, but a store (or the agent service in front of its own) was away before the attempt could run:
    // the same attempt resumes when the job comes back.
    if (isUnavailableError(err)) {
      await interrupted(exec.attempt);
      throw err;
    }
    // Anything else (a header value that cannot be opened, a bug) would fail the same way again: the run ends
    // failed now, with the reason, instead of going back to the queue.
    log.error('run attempt threw; ending the run failed', { execution_id: exec.id, err });
    return {
      retryable: false,
      outcome: failedOutcome(`worker error: ${(err as Error).message}`),
    };
  }
}

/**
 * Stores what an attempt came to: the execution back to `queued` and a retryable error for BullMQ while attempts
 * remain after a transient failure, else the outcome once (then the origin's statistics and the callback). Every
 * attempt is logged.
 */
export async function storeOutcome(
  deps: RunLifecycleDeps,
  log: Logger,
  exec: ExecutionRecord,
  { outcome, retryable }: AttemptResult,
  startedAt: Date,
): Promise<void> {
  const seconds = (deps.clock().getTime() - startedAt.getTime()) / 1000;
  const context = {
    execution_id: exec.id,
    schedule_id: exec.schedule_id,
    webhook_id: exec.webhook_id,
    attempt: exec.attempt,
    of: exec.max_attempts,
  };
  if (!outcome.success && retryable && exec.attempt < exec.max_attempts) {
    await untilStored(
      () => deps.executions.retryLater(exec.id, exec.attempt, outcome),
      deps.storeBackoff,
      log,
      exec.id,
    );
    deps.onAttempt?.('retry', seconds);
    log.warn('run attempt failed; will retry', {
      ...context,
      status: outcome.response_status,
      error: outcome.error_message,
    });
    throw new RetryableRunError(outcome.error_message ?? 'failed');
  }
  const done = await untilStored(
    () => deps.executions.finish(exec.id, exec.attempt, outcome, deps.clock(), startedAt),
    deps.storeBackoff,
    log,
    exec.id,
  );
  if (done) recordOutcome(deps, done, outcome.success);
  await queueCallback(deps, done);
  deps.onAttempt?.(outcome.success ? 'succeeded' : 'failed', seconds);
  const line = {
    ...context,
    status: outcome.response_status,
    seconds,
    ...(outcome.success ? {} : { error: outcome.error_message }),
  };
  if (outcome.success) log.info('run attempt succeeded', line);
  else log.warn('run attempt failed; final', line);
}
