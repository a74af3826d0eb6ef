import { addWithin, QUEUE_NAMES, type Queue } from '@platform/queue';

import type { AgentRunJob, ExecutionKind, ExecutionRecord } from './execution.types';
import type { RunJobs, RunJobState } from './run-recovery';

export interface EnqueueOptions {
  /** How long to wait for Redis before leaving the execution to the outbox sweeper. */
  timeoutMs: number;
  /** First retry delay of a transient failure; doubles per attempt (runs without a fixed `retry_delay_ms`). */
  backoffMs: number;
  /** Held back this long first (a retry after its delay); default none. */
  delayMs?: number;
  /** The attempt the job resumes (an attempt that an outage interrupted before it ran); default a new one. */
  resumeAttempt?: number;
}

/** The queues runs go to: agent runs (webhooks, agent schedules) and HTTP calls (HTTP schedules). */
export interface RunQueues {
  agentRuns: Queue<AgentRunJob>;
  httpCalls: Queue<AgentRunJob>;
}

/**
 * Puts an execution on `agent-runs`. The job id is the execution id, so adding the same execution twice (a sweeper
 * racing a slow add) yields one job; the payload is ids alone, and the trigger time that orders runs waiting for a
 * concurrency limit.
 */
export function enqueueAgentRun(
  queue: Queue<AgentRunJob>,
  exec: ExecutionRecord,
  opts: EnqueueOptions,
  jobId = exec.id,
): Promise<string> {
  return addWithin(
    queue,
    opts.timeoutMs,
    'run',
    {
      execution_id: exec.id,
      ...(exec.agent_id ? { agent_id: exec.agent_id } : {}),
      ...(exec.webhook_id ? { webhook_id: exec.webhook_id } : {}),
      triggered_ms: Date.parse(exec.triggered_at),
      ...(exec.trace_parent ? { traceparent: exec.trace_parent } : {}),
      ...(opts.resumeAttempt !== undefined ? { resume_attempt: opts.resumeAttempt } : {}),
    },
    {
      jobId,
      ...(opts.delayMs ? { delay: opts.delayMs } : {}),
      attempts: Math.max(1, exec.max_attempts),
      backoff:
        exec.retry_delay_ms !== null
          ? { type: 'fixed', delay: exec.retry_delay_ms }
          : { type: 'exponential', delay: opts.backoffMs },
    },
  );
}

/** The queue that carries runs of a kind: HTTP schedules' calls, or agent runs (webhooks, agent schedules). */
export const runQueueOf = (kind: ExecutionKind): string =>
  kind === 'http_schedule' ? QUEUE_NAMES.httpCalls : QUEUE_NAMES.agentRuns;

const queueOf = (queues: RunQueues, name: string) =>
  name === QUEUE_NAMES.httpCalls ? queues.httpCalls : queues.agentRuns;

/** Puts an execution on the queue of its kind (see `enqueueAgentRun`), under `jobId` (its own id by default). */
export function enqueueRun(
  queues: RunQueues,
  exec: ExecutionRecord,
  opts: EnqueueOptions,
  jobId = exec.id,
): Promise<string> {
  return enqueueAgentRun(queueOf(queues, runQueueOf(exec.kind)), exec, opts, jobId);
}

const ALIVE = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/** The run queues as the recovery rule sees them (run-recovery.ts); `load` reads a run to enqueue it. */
export function executionJobs(
  queues: RunQueues,
  opts: EnqueueOptions,
  load: (id: string) => Promise<ExecutionRecord | null>,
): RunJobs {
  return {
    async state(queue, jobId): Promise<RunJobState> {
      const state = await queueOf(queues, queue).getJobState(jobId);
      if (state === 'unknown') return 'missing';
      return ALIVE.has(state) ? 'alive' : 'finished';
    },
    async enqueue(run, jobId) {
      const exec = await load(run.id);
      if (exec) await enqueueRun(queues, exec, opts, jobId);
    },
  };
}
