import { NotFoundError, ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

import { failureCode } from './http';
import { agentServiceClient } from './service-client';

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
  /** The caller's outbound client (the agent service's host allowed); by default one allowing that host only. */
  outbound?: OutboundClient;
}

/**
 * Asks GET /v3/agents/{id} of the agent service with the caller's own key: both services read the same API keys,
 * so the agent service applies its ownership rule and answers 404 for another owner's agent.
 */
export function createAgentDirectory(opts: AgentDirectoryOptions): AgentDirectory {
  const agents = agentServiceClient({
    baseUrl: opts.baseUrl,
    timeoutMs: opts.timeoutMs,
    outbound: opts.outbound,
    maxResponseBytes: 1024 * 1024,
  });
  return {
    async assertOwnedAgent(apiKey, agentId) {
      let status: number;
      try {
        const { response } = await agents.GET('/v3/agents/{agent_id}', {
          params: { path: { agent_id: agentId } },
          headers: { 'x-api-key': apiKey, accept: 'application/json' },
          parseAs: 'stream', // only the status is read
        });
        status = response.status;
      } catch (err) {
        // Only the code: an error of the call may carry its request, and so the caller's key.
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
