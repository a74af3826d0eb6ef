import { internalCallHeaders } from '@platform/auth';
import type { OutboundClient } from '@platform/outbound';

import { answeredFailure, unansweredFailure, type CallFailure } from './http';
import { agentServiceClient } from './service-client';

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

/** What the typed client gives back for either task call. */
interface TaskAnswer {
  response: Response;
  data?: { status?: unknown };
  error?: unknown;
}

export interface TaskClientOptions {
  baseUrl: string;
  /** Secret of the agent service's internal on-behalf-of path. */
  internalSecret: string;
  timeoutMs: number;
  /** The caller's outbound client (the agent service's host allowed); by default one allowing that host only. */
  outbound?: OutboundClient;
}

/**
 * The worker's side of inference tasks: asks the agent service to run one attempt of a task (the service records
 * its state) and, when the queue gives a task up, to mark it failed.
 */
export function createTaskClient(opts: TaskClientOptions) {
  const agents = agentServiceClient({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs, outbound: opts.outbound });
  const call = (job: InferenceTaskJob) => ({
    params: { path: { task_id: job.task_id } },
    headers: internalCallHeaders(opts.internalSecret, job),
  });

  /** The task's state after a call: 404 → gone (removed or expired), 2xx → completed or failed, else the failure. */
  async function outcome(send: () => Promise<TaskAnswer>): Promise<TaskAttemptResult> {
    try {
      const { response: res, data, error } = await send();
      if (res.status === 404) return { ok: true, status: 'gone' };
      if (!res.ok) return answeredFailure(res.status, error);
      const status: unknown = data?.status;
      return { ok: true, status: status === 'completed' ? 'completed' : 'failed' };
    } catch (err) {
      return unansweredFailure(err);
    }
  }

  return {
    /** One attempt; `final` tells the service that a transient failure now ends the task. */
    run: (job: InferenceTaskJob, final: boolean) =>
      outcome(() => agents.POST('/v3/inference/task/{task_id}/run', { ...call(job), body: { final } })),
    /** Ends a task the queue gave up on (attempts spent while the agent service did not answer). */
    fail: (job: InferenceTaskJob, error: string) =>
      outcome(() => agents.POST('/v3/inference/task/{task_id}/fail', { ...call(job), body: { error } })),
  };
}

export type TaskClient = ReturnType<typeof createTaskClient>;
