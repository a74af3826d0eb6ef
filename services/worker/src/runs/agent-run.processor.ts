import type { Logger } from '@platform/logger';
import type { Job } from '@platform/queue';
import type { AgentRunJob, ExecutionRecord, ExecutionRepository, RunOutcome, WebhookStats } from '@platform/scheduling';
import type { AgentClient } from './agent.client';

export interface AgentRunDeps {
  executions: ExecutionRepository;
  runAgent: AgentClient;
  stats: WebhookStats;
  clock: () => Date;
  logger: Logger;
  /** Observes each finished attempt (metrics). */
  onAttempt?: (outcome: 'succeeded' | 'failed' | 'retry', seconds: number) => void;
}

/** Thrown to make BullMQ retry the job with backoff; the execution is already back to `queued`. */
export class RetryableRunError extends Error {
  override name = 'RetryableRunError';
}

/** The agent's message: the body text itself when the body is a JSON string, else the body as JSON. */
export function messageOf(payload: unknown): string {
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

/**
 * Processes one `agent-runs` job: claim the execution (exactly one attempt runs at a time), run the agent on its
 * owner's behalf, store the outcome once. Transient failures go back to the queue while attempts remain; a 4xx
 * is final at once.
 */
export function createAgentRunProcessor(deps: AgentRunDeps) {
  const log = deps.logger.child({ module: 'agent-run' });

  async function end(exec: ExecutionRecord, outcome: RunOutcome, startedAt: Date): Promise<void> {
    const done = await deps.executions.finish(exec.id, exec.attempt, outcome, deps.clock(), startedAt);
    if (done && exec.webhook_id) deps.stats.outcome(exec.webhook_id, outcome.success);
  }

  return async (job: Job<AgentRunJob>): Promise<void> => {
    const startedAt = deps.clock();
    const exec = await deps.executions.claim(job.data.execution_id, startedAt);
    if (!exec) {
      log.info('execution already ended or unknown; nothing to run', { execution_id: job.data.execution_id });
      return;
    }
    if (!exec.agent_id) {
      await end(exec, { success: false, response_status: null, response_output: null, error_message: 'execution has no agent' }, startedAt);
      return;
    }
    const result = await deps.runAgent({
      owner: { user_id: exec.user_id, org_id: exec.org_id },
      agent_id: exec.agent_id,
      session_id: exec.session_id ?? `execution-${exec.id}`,
      message: messageOf(exec.payload),
    });
    const seconds = (deps.clock().getTime() - startedAt.getTime()) / 1000;
    if (result.ok) {
      await end(exec, { success: true, response_status: result.status, response_output: result.output, error_message: null }, startedAt);
      deps.onAttempt?.('succeeded', seconds);
      return;
    }
    const outcome = { success: false, response_status: result.status, response_output: null, error_message: result.error };
    if (result.transient && exec.attempt < exec.max_attempts) {
      await deps.executions.retryLater(exec.id, exec.attempt, outcome);
      deps.onAttempt?.('retry', seconds);
      log.warn('agent run failed; will retry', { execution_id: exec.id, attempt: exec.attempt, error: result.error });
      throw new RetryableRunError(result.error);
    }
    await end(exec, outcome, startedAt);
    deps.onAttempt?.('failed', seconds);
  };
}

/**
 * When BullMQ gives a job up (attempts exhausted, or it stalled too often because workers died), the execution
 * must still end: this fails it if it is not already ended.
 */
export function createGiveUpHandler(deps: Pick<AgentRunDeps, 'executions' | 'stats' | 'clock' | 'logger'>) {
  return async (executionId: string, reason: string): Promise<void> => {
    const ended = await deps.executions.abandon(executionId, reason, deps.clock());
    if (!ended) return;
    if (ended.webhook_id) deps.stats.outcome(ended.webhook_id, false);
    deps.logger.warn('run given up', { execution_id: executionId, reason });
  };
}
