import axios, { type AxiosInstance } from 'axios';

export interface AgentRunRequest {
  owner: { user_id: string; org_id: string };
  agent_id: string;
  session_id: string;
  message: string;
}

/** Outcome of one call; `transient` failures (agent service 5xx or unreachable) are worth retrying. */
export type AgentRunResult =
  | { ok: true; status: number; output: string }
  | { ok: false; transient: boolean; status: number | null; error: string };

export interface AgentClientDeps {
  baseUrl: string;
  internalSecret: string;
  timeoutMs: number;
  http?: AxiosInstance;
}

function detailOf(data: unknown): string {
  if (data && typeof data === 'object' && 'detail' in data) {
    const d = (data as { detail: unknown }).detail;
    if (typeof d === 'string') return d;
    if (Array.isArray(d)) return d.map((e: { msg?: unknown }) => (typeof e?.msg === 'string' ? e.msg : JSON.stringify(e))).join('; ');
    return JSON.stringify(d);
  }
  return typeof data === 'string' ? data.slice(0, 500) : JSON.stringify(data ?? '').slice(0, 500);
}

/** Runs agents through the agent service's inference, on the owner's behalf (internal secret). */
export function createAgentClient(deps: AgentClientDeps) {
  const http = deps.http ?? axios.create();
  return async (req: AgentRunRequest): Promise<AgentRunResult> => {
    try {
      const res = await http.post(
        `${deps.baseUrl.replace(/\/$/, '')}/v3/inference/chat/`,
        { agent_id: req.agent_id, session_id: req.session_id, message: req.message },
        {
          timeout: deps.timeoutMs,
          validateStatus: () => true,
          headers: {
            'x-internal-secret': deps.internalSecret,
            'x-on-behalf-of-user': req.owner.user_id,
            'x-on-behalf-of-org': req.owner.org_id,
          },
        },
      );
      if (res.status >= 200 && res.status < 300) {
        const response = (res.data as { response?: unknown })?.response;
        return { ok: true, status: res.status, output: typeof response === 'string' ? response : JSON.stringify(response ?? null) };
      }
      return { ok: false, transient: res.status >= 500 || res.status === 429, status: res.status, error: detailOf(res.data) };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      return { ok: false, transient: true, status: null, error: `agent service unreachable: ${e.code ?? e.message ?? 'error'}` };
    }
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;
