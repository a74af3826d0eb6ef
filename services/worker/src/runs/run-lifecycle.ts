import { randomUUID } from 'node:crypto';

import { isUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { Job } from '@platform/queue';
import type { AgentRunJob, ExecutionRecord } from '@platform/scheduling';
import { annotate, inJobSpan, inSpan, recordErrorOnActive } from '@platform/tracing';

import { RetryableRunError } from './run-errors';
import type { AttemptResult, RunJobData, RunLifecycleDeps } from './run-lifecycle.types';
import { gateRuns } from './run-limits';
import { attemptOnce, queueCallback, storeOutcome } from './run-outcome';

export type { AttemptResult, RunLifecycleDeps, RunLimits } from './run-lifecycle.types';
export { limitKeysOf } from './run-limits';

/**
 * The life of a run job, whatever it runs: claim the execution (one attempt at a time, none after it ended), run
 * one attempt, then store the outcome once, or put the execution back to `queued` and let BullMQ retry the job
 * after its backoff while attempts remain. Every attempt is logged.
 *
 * Traced as a child of the span the run was created in (the job's `traceparent`): `queue wait` from the job's add to
 * its first claim, then `run` holding `claim` and the attempt (the agent service's or the endpoint's call).
 */
export function createRunProcessor(
  deps: RunLifecycleDeps,
  module: string,
  attempt: (exec: ExecutionRecord) => Promise<AttemptResult>,
) {
  const log = deps.logger.child({ module });
  /** This processor among every worker's: part of each claim it makes (execution.repository.ts `claim`). */
  const processorId = randomUUID();
  /**
   * Who claims a run for this delivery of its job: a claim sent again for the same delivery (its reply was lost, and
   * the job came back after a store wait) is the attempt it already started; a retry of the job, a delivery after a
   * stall or another worker's claims anew.
   */
  const claimantOf = (job: Job<RunJobData>) =>
    `${job.id ?? ''}:${job.attemptsMade}:${job.stalledCounter ?? 0}:${processorId}`;
  const traced = (job: Job<RunJobData>): Promise<void> =>
    inJobSpan(
      'run',
      { traceparent: job.data.traceparent, addedAt: job.timestamp, firstAttempt: job.attemptsMade === 0, id: job.id },
      { 'execution.id': job.data.execution_id, 'run.kind': module, 'job.attempt': job.attemptsMade },
      () => run(job),
    );
  const run = async (job: Job<RunJobData>): Promise<void> => {
    const startedAt = deps.clock();
    // A store error from here to the attempt's answer leaves the job waiting (store-wait.ts) with nothing spent.
    const exec = await inSpan('claim', {}, () =>
      deps.executions.claim(job.data.execution_id, startedAt, {
        claimant: claimantOf(job),
        resumeAttempt: job.data.resume_attempt,
      }),
    );
    if (!exec) {
      log.info('execution already ended or unknown; nothing to run', { execution_id: job.data.execution_id });
      // Its worker may have stopped between ending the run and queuing its callback (one read, on this rare path).
      if (deps.callbacks) await queueCallback(deps, await deps.executions.get(job.data.execution_id));
      return;
    }
    await attemptAndStore(deps, log, exec, attempt, startedAt, (n) =>
      job.updateData({ ...job.data, resume_attempt: n }),
    );
  };
  const limits = deps.limits;
  if (!limits) return (job: Job<RunJobData>, _token?: string): Promise<void> => traced(job);
  return gateRuns(limits, deps.executions, log, traced);
}

/** One attempt of a claimed run, then its outcome stored (see `storeOutcome`); traced on the active `run` span. */
async function attemptAndStore(
  deps: RunLifecycleDeps,
  log: Logger,
  exec: ExecutionRecord,
  attempt: (exec: ExecutionRecord) => Promise<AttemptResult>,
  startedAt: Date,
  interrupted: (attempt: number) => Promise<unknown>,
): Promise<void> {
  const result = await attemptOnce(exec, attempt, log, interrupted);
  annotate({ 'run.success': result.outcome.success, 'run.attempt': exec.attempt });
  if (!result.outcome.success) recordErrorOnActive(runFailure(result));
  await storeOutcome(deps, log, exec, result, startedAt);
}

/** How a run made at once goes to its queue: after a retry's delay, or to resume an interrupted attempt. */
export type HandOver = (exec: ExecutionRecord, opts: HandOverOptions) => Promise<unknown>;
type HandOverOptions = { delayMs?: number; resumeAttempt?: number };

/**
 * The first attempt of a run made by the code that created it, with no job of its own: a cron fire of an HTTP
 * schedule, whose execution was stored already claimed (`running`, attempt 1). The attempt and its outcome are the
 * run job's (`createRunProcessor`). What a job would do next goes to the run's queue (`handOver`) under the
 * execution's id: the retry after a transient failure while attempts remain (delayed by the run's `retry_delay_ms`,
 * else `backoffMs`), or the same attempt again when a store or Redis outage interrupted it (a run already ended then
 * only has its callback queued). A hand-over Redis refuses leaves the run to the recovery rule (libs/scheduling
 * run-recovery): a retry waits `queued` and is enqueued after `queuedAfterMs`, an interrupted attempt waits `running`
 * and is put back after `runningAfterMs`.
 */
export function createDirectRun(
  deps: RunLifecycleDeps & { backoffMs: number },
  module: string,
  attempt: (exec: ExecutionRecord) => Promise<AttemptResult>,
  handOver: HandOver,
) {
  const log = deps.logger.child({ module });
  const pass = (exec: ExecutionRecord, opts: HandOverOptions) =>
    handOver(exec, opts).catch((err: unknown) =>
      log.warn('run not queued for its next attempt; left to recovery', {
        execution_id: exec.id,
        err: (err as Error).message,
      }),
    );
  return (exec: ExecutionRecord): Promise<void> =>
    inSpan('run', { attributes: { 'execution.id': exec.id, 'run.kind': module, 'run.direct': true } }, async () => {
      const startedAt = exec.started_at ? new Date(exec.started_at) : deps.clock();
      try {
        await attemptAndStore(deps, log, exec, attempt, startedAt, () => Promise.resolve());
      } catch (err) {
        if (err instanceof RetryableRunError) {
          await pass(exec, { delayMs: exec.retry_delay_ms ?? deps.backoffMs });
          return;
        }
        if (!isUnavailableError(err)) throw err;
        await pass(exec, { resumeAttempt: exec.attempt });
      }
    });
}

/** A failed attempt as the run's span records it: `error.type` RunFailed, the reason, the status when one came. */
function runFailure(result: AttemptResult): Error {
  const err = new Error(result.outcome.error_message ?? 'the run failed');
  err.name = 'RunFailed';
  return Object.assign(err, { status: result.outcome.response_status ?? undefined });
}

/**
 * When BullMQ gives a job up without the run having ended (it stalled more often than allowed: its workers kept
 * dying), the run goes back to `queued` with its attempts as they are, and the recovery rule (libs/scheduling
 * run-recovery) puts it on the queue again under a new job; a run that keeps killing workers is ended there after
 * MAX_RECOVERIES. A final failure of the run itself never reaches this: the processor records it.
 */
export function createGiveUpHandler(deps: Pick<RunLifecycleDeps, 'executions' | 'logger'>) {
  return async (job: Job<AgentRunJob>, reason: string): Promise<void> => {
    if (await deps.executions.release(job.data.execution_id))
      deps.logger.warn('run job given up; left to recovery', { execution_id: job.data.execution_id, reason });
  };
}
