import { ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, operationCall, siblingOperation } from '@platform/service-client';
import { inSpan } from '@platform/tracing';

import type { Owner } from '../agents/agent.types';
import { raiVerdict } from './rai.schemas';
import type { RaiTarget, RaiVerdict } from './rai.types';

/** The rai service's verdict on a text. */
export const RAI_INFERENCE = siblingOperation({
  service: 'rai',
  method: 'POST',
  path: '/v1/rai/inference',
  response: raiVerdict,
});

export interface RaiClientDeps {
  outbound: OutboundClient;
  /** Unset: no RAI service is configured, and every check fails closed. */
  target?: RaiTarget;
  logger: Logger;
}

/**
 * Asks the RAI service for a verdict on a text, on behalf of the agent's owner. It fails closed: an RAI service that
 * is not configured, unreachable or answering oddly → 503, never an unchecked text.
 */
export function createRaiClient({ outbound, target, logger }: RaiClientDeps) {
  const rai = createServiceClient({ outbound, target: target ?? null, logger, name: 'RAI service (fails closed)' });
  return {
    check(owner: Owner, policyId: string, text: string, direction: 'input' | 'output'): Promise<RaiVerdict> {
      const attributes = { 'rai.policy_id': policyId, 'rai.direction': direction };
      return inSpan('rai check', { attributes }, async (span) => {
        const verdict = await ask(owner, policyId, text, direction);
        span.setAttributes({ 'rai.action': verdict.action, 'rai.violations': verdict.violations.length });
        return verdict;
      });
    },
  };

  function ask(owner: Owner, policyId: string, text: string, direction: 'input' | 'output'): Promise<RaiVerdict> {
    return rai.call({
      what: 'an RAI check',
      ...operationCall(RAI_INFERENCE),
      body: { policy_id: policyId, text, direction },
      owner,
      on: {
        404: () => {
          throw ValidationError.field(
            ['body', 'agent_id'],
            `RAI policy ${policyId} of the agent's RAI feature not found`,
            'policy_not_found',
          );
        },
        ...(direction === 'input'
          ? {
              422: () => {
                throw ValidationError.field(
                  ['body', 'message'],
                  'The message cannot be checked by the RAI policy (too long or invalid)',
                  'rai_rejected',
                );
              },
            }
          : {}),
      },
    });
  }
}

export type RaiClient = ReturnType<typeof createRaiClient>;
