import { randomUUID } from 'node:crypto';

import type { Job } from '@platform/queue';
import type { AgentRunJob, ExecutionRecord } from '@platform/scheduling';
import { annotate, inJobSpan, inSpan, recordErrorOnActive } from '@platform/tracing';

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
    const result = await attemptOnce(job, exec, attempt, log);
    annotate({ 'run.success': result.outcome.success, 'run.attempt': exec.attempt });
    if (!result.outcome.success) recordErrorOnActive(runFailure(result));
    await storeOutcome(deps, log, exec, result, startedAt);
  };
  const limits = deps.limits;
  if (!limits) return (job: Job<RunJobData>, _token?: string): Promise<void> => traced(job);
  return gateRuns(limits, deps.executions, log, traced);
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
