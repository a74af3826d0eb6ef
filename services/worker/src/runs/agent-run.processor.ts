import type { AgentRunner } from '@platform/agent-client';
import { ServiceUnavailableError } from '@platform/errors';
import type { ExecutionRecord } from '@platform/scheduling';

import { createRunProcessor, type AttemptResult, type RunLifecycleDeps } from './run-lifecycle';
import { failedOutcome } from './run-outcome';

export interface AgentRunDeps extends RunLifecycleDeps {
  runAgent: AgentRunner;
}

/** The agent's message: the body text itself when the body is a JSON string, else the body as JSON. */
export function messageOf(payload: unknown): string {
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

/**
 * Processes one `agent-runs` job (a webhook trigger or an agent schedule's fire): runs the agent on its owner's
 * behalf. Transient failures (the provider failed, the run timed out) are retried while attempts remain; a 4xx
 * (the agent is gone, the request is invalid) is final at once; an agent service that cannot take the call at all
 * (unreachable, 503) leaves the job waiting without spending an attempt.
 */
export function createAgentRunProcessor(deps: AgentRunDeps) {
  return createRunProcessor(deps, 'agent-run', async (exec: ExecutionRecord): Promise<AttemptResult> => {
    if (!exec.agent_id)
      return {
        retryable: false,
        outcome: failedOutcome('execution has no agent'),
      };
    const result = await deps.runAgent({
      owner: { user_id: exec.user_id, org_id: exec.org_id },
      agent_id: exec.agent_id,
      session_id: exec.session_id ?? `execution-${exec.id}`,
      message: messageOf(exec.payload),
    });
    if (result.ok)
      return {
        retryable: false,
        outcome: { success: true, response_status: result.status, response_output: result.output, error_message: null },
      };
    if (result.unavailable) throw new ServiceUnavailableError(undefined, result.error);
    return {
      retryable: result.transient,
      outcome: failedOutcome(result.error, result.status),
    };
  });
}
