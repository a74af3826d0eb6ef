import Joi from 'joi';

import { NotFoundError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { operationCall } from '@platform/service-client';

import { AGENT_READ } from './operations';
import { agentService } from './service-client';

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
 * so the agent service applies its ownership rule and answers 404 for another owner's agent. The client logs an
 * unreachable service by its error's message (never the request, which holds the key) and any other answer by its
 * status.
 */
export function createAgentDirectory(opts: AgentDirectoryOptions): AgentDirectory {
  const agents = agentService({ ...opts, internalSecret: null });
  return {
    async assertOwnedAgent(apiKey, agentId) {
      await agents.call({
        what: 'an ownership check',
        ...operationCall(AGENT_READ, { agent_id: agentId }),
        response: Joi.any(), // only the status is read
        apiKey,
        on: {
          404: () => {
            throw new NotFoundError('Agent');
          },
        },
      });
    },
  };
}
