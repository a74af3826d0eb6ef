import type { InferenceTaskJob } from '@platform/agent-client';
import { addWithin, type Queue } from '@platform/queue';
import { activeTraceparent } from '@platform/tracing';

import type { TaskQueue } from './task.types';

export interface TaskQueueOptions {
  /** How long a submission waits for Redis to take the job before it is refused (503). */
  enqueueTimeoutMs: number;
  /** Attempts of a task whose failures are transient (provider errors, timeouts), with exponential backoff. */
  attempts: number;
  backoffMs: number;
}

/** The `inference-tasks` queue as the task service sees it. The job id is the task id, so a task is queued once. */
export function bullTaskQueue(queue: Queue<InferenceTaskJob>, opts: TaskQueueOptions): TaskQueue {
  return {
    async add(job) {
      // The worker's attempt joins the trace of the request that submitted the task.
      const traceparent = activeTraceparent();
      await addWithin(queue, opts.enqueueTimeoutMs, 'inference-task', traceparent ? { ...job, traceparent } : job, {
        jobId: job.task_id,
        attempts: opts.attempts,
        backoff: { type: 'exponential', delay: opts.backoffMs },
      });
    },
  };
}
