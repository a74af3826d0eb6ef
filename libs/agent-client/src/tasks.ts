import { internalCallHeaders } from '@platform/auth';
import { NOT_CONNECTED_CODES } from '@platform/errors';
import type { OutboundClient } from '@platform/outbound';

import { failureCode } from './http';
import { detailOf } from './runner';
import { agentServiceClient } from './service-client';

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
  /** The caller's outbound client (the agent service's host allowed); by default one allowing that host only. */
  outbound?: OutboundClient;
}

/**
 * The worker's side of inference tasks: asks the agent service to run one attempt of a task (the service records
 * its state) and, when the queue gives a task up, to mark it failed.
 */
export function createTaskClient(opts: TaskClientOptions) {
  const agents = agentServiceClient({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs, outbound: opts.outbound });
  const headers = (job: InferenceTaskJob) => internalCallHeaders(opts.internalSecret, job);

  async function call(job: InferenceTaskJob, action: 'run' | 'fail', body: object): Promise<TaskAttemptResult> {
    try {
      const params = { path: { task_id: job.task_id } };
      const {
        response: res,
        data,
        error,
      } = action === 'run'
        ? await agents.POST('/v3/inference/task/{task_id}/run', {
            params,
            body: body as { final: boolean },
            headers: headers(job),
          })
        : await agents.POST('/v3/inference/task/{task_id}/fail', {
            params,
            body: body as { error: string },
            headers: headers(job),
          });
      if (res.status === 404) return { ok: true, status: 'gone' };
      if (res.ok) {
        const status: unknown = data?.status;
        return { ok: true, status: status === 'completed' ? 'completed' : 'failed' };
      }
      return {
        ok: false,
        transient: res.status >= 500 || res.status === 429,
        unavailable: res.status === 503,
        error: detailOf(error),
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
