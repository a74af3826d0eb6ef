import type { InferenceTaskJob, TaskClient } from '@platform/agent-client';
import { ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { Job } from '@platform/queue';
import { inJobSpan } from '@platform/tracing';

import { RetryableRunError } from '../runs/run-errors';

export interface TaskProcessorDeps {
  tasks: TaskClient;
  logger: Logger;
  /** Observes each attempt (metrics). */
  onAttempt?: (outcome: 'succeeded' | 'failed' | 'retry', seconds: number) => void;
  now?: () => number;
}

/**
 * Processes one `inference-tasks` job: asks the agent service to run an attempt of the task, which records the
 * task's state itself. A transient failure is retried by BullMQ while attempts remain (the last attempt is told it
 * is final, so the service ends the task); an agent service that cannot take the call leaves the job waiting
 * without spending an attempt; a job whose task is gone (expired) ends quietly. Traced under the request that
 * submitted the task: `queue wait` (first attempt), then `task run` holding the agent service's call.
 */
export function createTaskProcessor(deps: TaskProcessorDeps) {
  const log = deps.logger.child({ module: 'inference-task' });
  const now = deps.now ?? Date.now;
  const attempt = async (job: Job<InferenceTaskJob>): Promise<void> => {
    const started = now();
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const result = await deps.tasks.run(job.data, final);
    const seconds = (now() - started) / 1000;
    if (result.ok) {
      deps.onAttempt?.(result.status === 'failed' ? 'failed' : 'succeeded', seconds);
      if (result.status === 'gone')
        log.info('task gone (expired or deleted); nothing to run', { task_id: job.data.task_id });
      return;
    }
    if (result.unavailable) throw new ServiceUnavailableError(undefined, result.error);
    deps.onAttempt?.(result.transient && !final ? 'retry' : 'failed', seconds);
    if (result.transient && !final) throw new RetryableRunError(result.error);
    // The service did not record an end (it failed to answer): the give-up handler marks the task failed.
    throw new Error(result.error);
  };
  return (job: Job<InferenceTaskJob>): Promise<void> =>
    inJobSpan(
      'task run',
      { traceparent: job.data.traceparent, addedAt: job.timestamp, firstAttempt: job.attemptsMade === 0, id: job.id },
      { 'task.id': job.data.task_id, 'job.attempt': job.attemptsMade },
      () => attempt(job),
    );
}

/** Marks a task failed when BullMQ gives its job up for good (attempts spent, or stalled too often). */
export function createTaskGiveUp(deps: Pick<TaskProcessorDeps, 'tasks' | 'logger'>) {
  return async (job: Job<InferenceTaskJob>, reason: string): Promise<void> => {
    const r = await deps.tasks.fail(job.data, reason.slice(0, 2000) || 'task given up');
    if (!r.ok) deps.logger.warn('could not mark a given-up task failed', { task_id: job.data.task_id, err: r.error });
  };
}
