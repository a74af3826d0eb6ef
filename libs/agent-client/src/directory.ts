import type { AxiosInstance } from 'axios';
import { NotFoundError, ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { agentServiceHttp, failureCode } from './http';

/** What a service needs to know about agents, answered by the agent service. */
export interface AgentDirectory {
  /**
   * Resolves when the agent exists and belongs to the owner of `apiKey`. 404 `Agent not found` when it does not;
   * 503 `Service unavailable` when the agent service is unreachable, too slow, or answers anything else.
   */
  assertOwnedAgent(apiKey: string, agentId: string): Promise<void>;
}

export interface AgentDirectoryOptions {
  /** The agent service's base URL, e.g. http://agent:3002. */
  baseUrl: string;
  timeoutMs: number;
  logger: Logger;
  /** Injected in tests; by default an instance made for `baseUrl`. */
  http?: AxiosInstance;
}

/**
 * Asks GET /v3/agents/{id} of the agent service with the caller's own key: both services read the same API keys,
 * so the agent service applies its ownership rule and answers 404 for another owner's agent.
 */
export function createAgentDirectory(opts: AgentDirectoryOptions): AgentDirectory {
  const http =
    opts.http ?? agentServiceHttp({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs, extra: { maxRedirects: 0, maxContentLength: 1024 * 1024, proxy: false } });
  return {
    async assertOwnedAgent(apiKey, agentId) {
      let status: number;
      try {
        const res = await http.get(`/v3/agents/${encodeURIComponent(agentId)}`, {
          headers: { 'x-api-key': apiKey, accept: 'application/json' },
          signal: AbortSignal.timeout(opts.timeoutMs),
        });
        status = res.status;
      } catch (err) {
        // Only the code: the request config on an axios error carries the caller's key.
        const code = failureCode(err) ?? 'ERROR';
        opts.logger.warn('agent service unreachable', { code });
        throw new ServiceUnavailableError(new Error(`agent service: ${code}`));
      }
      if (status === 200) return;
      if (status === 404) throw new NotFoundError('Agent');
      opts.logger.warn('agent service answered unexpectedly', { status });
      throw new ServiceUnavailableError(new Error(`agent service answered ${status}`));
    },
  };
}
