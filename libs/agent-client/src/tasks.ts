import type { AxiosInstance } from 'axios';

import { internalCallHeaders } from '@platform/auth';
import { NOT_CONNECTED_CODES } from '@platform/errors';

import { agentServiceHttp, failureCode } from './http';
import { detailOf } from './runner';

/** A job of the `inference-tasks` queue: the task lives in the agent service's database, the job only names it. */
export interface InferenceTaskJob {
  task_id: string;
  user_id: string;
  org_id: string;
}

/** What the agent service answered to one attempt of a task. */
export type TaskAttemptResult =
  | { ok: true; status: 'completed' | 'failed' | 'gone' }
  | { ok: false; transient: boolean; unavailable: boolean; error: string };

export interface TaskClientOptions {
  baseUrl: string;
  /** Secret of the agent service's internal on-behalf-of path. */
  internalSecret: string;
  timeoutMs: number;
  http?: AxiosInstance;
}

/**
 * The worker's side of inference tasks: asks the agent service to run one attempt of a task (the service records
 * its state) and, when the queue gives a task up, to mark it failed.
 */
export function createTaskClient(opts: TaskClientOptions) {
  const http = opts.http ?? agentServiceHttp({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs });
  const headers = (job: InferenceTaskJob) => internalCallHeaders(opts.internalSecret, job);
  const path = (job: InferenceTaskJob, action: 'run' | 'fail') =>
    `/v3/inference/task/${encodeURIComponent(job.task_id)}/${action}`;

  async function call(job: InferenceTaskJob, action: 'run' | 'fail', body: object): Promise<TaskAttemptResult> {
    try {
      const res = await http.post(path(job, action), body, { headers: headers(job) });
      if (res.status === 404) return { ok: true, status: 'gone' };
      if (res.status >= 200 && res.status < 300) {
        const status = (res.data as { status?: unknown })?.status;
        return { ok: true, status: status === 'completed' ? 'completed' : 'failed' };
      }
      return {
        ok: false,
        transient: res.status >= 500 || res.status === 429,
        unavailable: res.status === 503,
        error: detailOf(res.data),
      };
    } catch (err) {
      const code = failureCode(err);
      const reached = !(code && NOT_CONNECTED_CODES.has(code));
      return {
        ok: false,
        transient: true,
        unavailable: !reached,
        error: `agent service ${reached ? 'call failed' : 'unreachable'}: ${code ?? 'error'}`,
      };
    }
  }

  return {
    /** One attempt; `final` tells the service that a transient failure now ends the task. */
    run: (job: InferenceTaskJob, final: boolean) => call(job, 'run', { final }),
    /** Ends a task the queue gave up on (attempts spent while the agent service did not answer). */
    fail: (job: InferenceTaskJob, error: string) => call(job, 'fail', { error }),
  };
}

export type TaskClient = ReturnType<typeof createTaskClient>;
