import { internalCallHeaders } from '@platform/auth';
import type { OutboundClient } from '@platform/outbound';

import { answeredFailure, unansweredFailure, type CallFailure } from './http';
import { agentServiceClient } from './service-client';

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
  /** The caller's outbound client (the agent service's host allowed); by default one allowing that host only. */
  outbound?: OutboundClient;
}

/** Runs agents through the agent service's inference (POST /v3/inference/chat/) on an owner's behalf. */
export function createAgentRunner(opts: AgentRunnerOptions) {
  const agents = agentServiceClient({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs, outbound: opts.outbound });
  return async (req: AgentRunRequest): Promise<AgentRunResult> => {
    try {
      const {
        response: res,
        data,
        error,
      } = await agents.POST('/v3/inference/chat/', {
        body: { agent_id: req.agent_id, session_id: req.session_id, message: req.message },
        headers: internalCallHeaders(opts.internalSecret, req.owner),
      });
      if (res.ok) {
        // The document says a string; anything else (an older or newer agent service) is kept as its JSON.
        const response: unknown = data?.response;
        return {
          ok: true,
          status: res.status,
          output: typeof response === 'string' ? response : JSON.stringify(response ?? null),
        };
      }
      return answeredFailure(res.status, error);
    } catch (err) {
      return unansweredFailure(err);
    }
  };
}

export type AgentRunner = ReturnType<typeof createAgentRunner>;
