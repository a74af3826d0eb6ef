import type { Logger } from '@platform/logger';
import type { Job } from '@platform/queue';
import type { AgentRunJob, ExecutionRecord, ExecutionRepository, RunOutcome, RunStats } from '@platform/scheduling';
import { RetryableRunError } from './run-errors';

/** What one attempt of a run came to. */
export interface AttemptResult {
  outcome: RunOutcome;
  /** Worth another attempt (a transient failure); a final failure ends the execution at once. */
  retryable: boolean;
}

export interface RunLifecycleDeps {
  executions: ExecutionRepository;
  /** Statistics of the run's origin: `last_trigger_success` of webhooks, `last_run_success` of schedules. */
  stats: { webhooks: RunStats; schedules: RunStats };
  clock: () => Date;
  logger: Logger;
  /** Observes each finished attempt (metrics). */
  onAttempt?: (outcome: 'succeeded' | 'failed' | 'retry', seconds: number) => void;
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
 * The life of a run job, whatever it runs: claim the execution (one attempt at a time, none after it ended), run
 * one attempt, then store the outcome once, or put the execution back to `queued` and let BullMQ retry the job
 * after its backoff while attempts remain. Every attempt is logged.
 */
export function createRunProcessor(deps: RunLifecycleDeps, module: string, attempt: (exec: ExecutionRecord) => Promise<AttemptResult>) {
  const log = deps.logger.child({ module });
  return async (job: Job<AgentRunJob>): Promise<void> => {
    const startedAt = deps.clock();
    const exec = await deps.executions.claim(job.data.execution_id, startedAt);
    if (!exec) {
      log.info('execution already ended or unknown; nothing to run', { execution_id: job.data.execution_id });
      return;
    }
    const { outcome, retryable } = await attempt(exec);
    const seconds = (deps.clock().getTime() - startedAt.getTime()) / 1000;
    const context = { execution_id: exec.id, schedule_id: exec.schedule_id, webhook_id: exec.webhook_id, attempt: exec.attempt, of: exec.max_attempts };
    if (!outcome.success && retryable && exec.attempt < exec.max_attempts) {
      await deps.executions.retryLater(exec.id, exec.attempt, outcome);
      deps.onAttempt?.('retry', seconds);
      log.warn('run attempt failed; will retry', { ...context, status: outcome.response_status, error: outcome.error_message });
      throw new RetryableRunError(outcome.error_message ?? 'failed');
    }
    const done = await deps.executions.finish(exec.id, exec.attempt, outcome, deps.clock(), startedAt);
    if (done) recordOutcome(deps, done, outcome.success);
    deps.onAttempt?.(outcome.success ? 'succeeded' : 'failed', seconds);
    const line = { ...context, status: outcome.response_status, seconds, ...(outcome.success ? {} : { error: outcome.error_message }) };
    if (outcome.success) log.info('run attempt succeeded', line);
    else log.warn('run attempt failed; final', line);
  };
}

/**
 * When BullMQ gives a job up (attempts exhausted, or it stalled too often because workers died), the execution
 * must still end: this fails it if it is not already ended.
 */
export function createGiveUpHandler(deps: Pick<RunLifecycleDeps, 'executions' | 'stats' | 'clock' | 'logger'>) {
  return async (job: Job<AgentRunJob>, reason: string): Promise<void> => {
    const ended = await deps.executions.abandon(job.data.execution_id, reason, deps.clock());
    if (!ended) return;
    recordOutcome(deps, ended, false);
    deps.logger.warn('run given up', { execution_id: ended.id, reason });
  };
}
