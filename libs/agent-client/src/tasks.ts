import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { operationCall, type ServiceAnswer } from '@platform/service-client';

import { answered, unansweredFailure, type CallFailure } from './http';
import { TASK_FAIL, TASK_RUN } from './operations';
import { MAX_RUN_ANSWER_BYTES } from './runner';
import { agentService } from './service-client';

/** A job of the `inference-tasks` queue: the task lives in the agent service's database, the job only names it. */
export interface InferenceTaskJob {
  task_id: string;
  user_id: string;
  org_id: string;
  /** The trace of the request that submitted the task (W3C `traceparent`); absent when not traced. */
  traceparent?: string;
}

/** What the agent service answered to one attempt of a task. */
export type TaskAttemptResult = { ok: true; status: 'completed' | 'failed' | 'gone' } | CallFailure;

export interface TaskClientOptions {
  baseUrl: string;
  /** Secret of the agent service's internal on-behalf-of path. */
  internalSecret: string;
  timeoutMs: number;
  logger: Logger;
  /** The caller's outbound client (the agent service's host allowed); by default one allowing that host only. */
  outbound?: OutboundClient;
}

/**
 * The worker's side of inference tasks: asks the agent service to run one attempt of a task (the service records
 * its state) and, when the queue gives a task up, to mark it failed.
 */
export function createTaskClient(opts: TaskClientOptions) {
  const agents = agentService(opts);

  /** The task's state after a call: 404 → gone (removed or expired), 2xx → completed or failed, else the failure. */
  async function outcome(
    op: typeof TASK_RUN | typeof TASK_FAIL,
    job: InferenceTaskJob,
    body: object,
  ): Promise<TaskAttemptResult> {
    const { method, path } = operationCall(op, { task_id: job.task_id });
    const owner = { user_id: job.user_id, org_id: job.org_id };
    const what = op === TASK_RUN ? 'a task attempt' : 'a task given up';
    const res: ServiceAnswer | CallFailure = await agents
      .send({ what, method, path, owner, body, maxResponseBytes: MAX_RUN_ANSWER_BYTES })
      .catch(unansweredFailure);
    if ('ok' in res) return res;
    if (res.status === 404) return { ok: true, status: 'gone' };
    return answered(res, (data) => {
      const status = (data as { status?: unknown } | null)?.status;
      return { ok: true, status: status === 'completed' ? 'completed' : 'failed' };
    });
  }

  return {
    /** One attempt; `final` tells the service that a transient failure now ends the task. */
    run: (job: InferenceTaskJob, final: boolean) => outcome(TASK_RUN, job, { final }),
    /** Ends a task the queue gave up on (attempts spent while the agent service did not answer). */
    fail: (job: InferenceTaskJob, error: string) => outcome(TASK_FAIL, job, { error }),
  };
}

export type TaskClient = ReturnType<typeof createTaskClient>;
