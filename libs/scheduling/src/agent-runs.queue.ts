import { addWithin, type Queue } from '@platform/queue';
import type { AgentRunJob, ExecutionRecord } from './execution.types';

export interface EnqueueOptions {
  /** How long to wait for Redis before leaving the execution to the outbox sweeper. */
  timeoutMs: number;
  /** First retry delay of a transient failure; doubles per attempt (runs without a fixed `retry_delay_ms`). */
  backoffMs: number;
}

/** The queues runs go to: agent runs (webhooks, agent schedules) and HTTP calls (HTTP schedules). */
export interface RunQueues {
  agentRuns: Queue<AgentRunJob>;
  httpCalls: Queue<AgentRunJob>;
}

/**
 * Puts an execution on `agent-runs`. The job id is the execution id, so adding the same execution twice (a sweeper
 * racing a slow add) yields one job; the payload is the id alone.
 */
export function enqueueAgentRun(queue: Queue<AgentRunJob>, exec: ExecutionRecord, opts: EnqueueOptions): Promise<string> {
  return addWithin(queue, opts.timeoutMs, 'run', { execution_id: exec.id }, {
    jobId: exec.id,
    attempts: Math.max(1, exec.max_attempts),
    backoff: exec.retry_delay_ms !== null ? { type: 'fixed', delay: exec.retry_delay_ms } : { type: 'exponential', delay: opts.backoffMs },
  });
}

/** Puts an execution on the queue of its kind (see `enqueueAgentRun`). */
export function enqueueRun(queues: RunQueues, exec: ExecutionRecord, opts: EnqueueOptions): Promise<string> {
  return enqueueAgentRun(exec.kind === 'http_schedule' ? queues.httpCalls : queues.agentRuns, exec, opts);
}
