import { internalCallHeaders } from '@platform/auth';
import { NOT_CONNECTED_CODES } from '@platform/errors';
import type { OutboundClient } from '@platform/outbound';

import { failureCode } from './http';
import { agentServiceClient } from './service-client';

export interface AgentRunRequest {
  owner: { user_id: string; org_id: string };
  agent_id: string;
  session_id: string;
  message: string;
}

/**
 * Outcome of one call. `transient` failures (the provider failed, the run timed out) are worth another attempt.
 * `unavailable`: the agent service could not take the call at all (unreachable, or 503 because its own database or
 * Redis is away); nothing ran, so the caller may wait for it instead of spending an attempt.
 */
export type AgentRunResult =
  | { ok: true; status: number; output: string }
  | { ok: false; transient: boolean; unavailable: boolean; status: number | null; error: string };

export interface AgentRunnerOptions {
  baseUrl: string;
  /** Secret of the agent service's internal on-behalf-of path. */
  internalSecret: string;
  timeoutMs: number;
  /** The caller's outbound client (the agent service's host allowed); by default one allowing that host only. */
  outbound?: OutboundClient;
}

/** The `detail` of an error body as one line. */
export function detailOf(data: unknown): string {
  if (data && typeof data === 'object' && 'detail' in data) {
    const d = data.detail;
    if (typeof d === 'string') return d;
    if (Array.isArray(d))
      return d.map((e: { msg?: unknown }) => (typeof e?.msg === 'string' ? e.msg : JSON.stringify(e))).join('; ');
    return JSON.stringify(d);
  }
  return typeof data === 'string' ? data.slice(0, 500) : JSON.stringify(data ?? '').slice(0, 500);
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
      return {
        ok: false,
        transient: res.status >= 500 || res.status === 429,
        unavailable: res.status === 503,
        status: res.status,
        error: detailOf(error),
      };
    } catch (err) {
      const code = failureCode(err);
      const reached = !(code && NOT_CONNECTED_CODES.has(code));
      const what = code ?? (err as { message?: string } | null)?.message ?? 'error';
      return {
        ok: false,
        transient: true,
        unavailable: !reached,
        status: null,
        error: `agent service ${reached ? 'call failed' : 'unreachable'}: ${what}`,
      };
    }
  };
}

export type AgentRunner = ReturnType<typeof createAgentRunner>;
