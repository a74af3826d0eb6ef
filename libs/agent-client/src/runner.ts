import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { operationCall } from '@platform/service-client';

import { answered, unansweredFailure, type CallFailure } from './http';
import { AGENT_CHAT } from './operations';
import { agentService } from './service-client';

export interface AgentRunRequest {
  owner: { user_id: string; org_id: string };
  agent_id: string;
  session_id: string;
  message: string;
}

/** Outcome of one call (a failure classified by `CallFailure`'s rules: the provider failed, the run timed out, ...). */
export type AgentRunResult = { ok: true; status: number; output: string } | CallFailure;

export interface AgentRunnerOptions {
  baseUrl: string;
  /** Secret of the agent service's internal on-behalf-of path. */
  internalSecret: string;
  timeoutMs: number;
  logger: Logger;
  /** The caller's outbound client (the agent service's host allowed); by default one allowing that host only. */
  outbound?: OutboundClient;
}

/** An agent's answer is read whole up to this size. */
export const MAX_RUN_ANSWER_BYTES = 5 * 1024 * 1024;

/** Runs agents through the agent service's inference (POST /v3/inference/chat/) on an owner's behalf. */
export function createAgentRunner(opts: AgentRunnerOptions) {
  const agents = agentService(opts);
  const { method, path } = operationCall(AGENT_CHAT);
  return async (req: AgentRunRequest): Promise<AgentRunResult> => {
    const res = await agents
      .send({
        what: 'an agent run',
        method,
        path,
        owner: req.owner,
        body: { agent_id: req.agent_id, session_id: req.session_id, message: req.message },
        maxResponseBytes: MAX_RUN_ANSWER_BYTES,
      })
      .catch(unansweredFailure);
    if ('ok' in res) return res;
    return answered(res, (data) => {
      // The document says a string; anything else (an older or newer agent service) is kept as its JSON.
      const response = (data as { response?: unknown } | null)?.response;
      return {
        ok: true,
        status: res.status,
        output: typeof response === 'string' ? response : JSON.stringify(response ?? null),
      };
    });
  };
}

export type AgentRunner = ReturnType<typeof createAgentRunner>;
