import { internalCallHeaders } from '@platform/auth';
import { ServiceUnavailableError, ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

import type { Owner } from '../agents/agent.types';
import type { RaiTarget, RaiVerdict } from './rai.types';

export interface RaiClientDeps {
  outbound: OutboundClient;
  /** Unset: no RAI service is configured, and every check fails closed. */
  target?: RaiTarget;
  logger: Logger;
}

const isVerdict = (v: unknown): v is RaiVerdict => {
  const o = v as Partial<RaiVerdict> | null;
  return (
    !!o &&
    typeof o.allowed === 'boolean' &&
    typeof o.text === 'string' &&
    Array.isArray(o.violations) &&
    ['allow', 'redact', 'block'].includes(String(o.action))
  );
};

/**
 * Asks the RAI service for a verdict on a text, on behalf of the agent's owner. It fails closed: an RAI service that
 * is not configured, unreachable or answering oddly → 503, never an unchecked text.
 */
export function createRaiClient({ outbound, target, logger }: RaiClientDeps) {
  const unavailable = (why: string, extra: Record<string, unknown> = {}) => {
    logger.error(`rai check failed closed: ${why}`, extra);
    return new ServiceUnavailableError();
  };
  return {
    async check(owner: Owner, policyId: string, text: string, direction: 'input' | 'output'): Promise<RaiVerdict> {
      if (!target?.secret) throw unavailable('RAI_URL or INTERNAL_SERVICE_SECRET is not set');
      const res = await outbound
        .request({
          url: `${target.baseUrl.replace(/\/+$/, '')}/v1/rai/inference`,
          method: 'POST',
          headers: internalCallHeaders(target.secret, owner),
          body: { policy_id: policyId, text, direction },
          timeoutMs: target.timeoutMs ?? 10_000,
          maxRedirects: 0,
        })
        .catch((err: unknown) => {
          throw unavailable('RAI service unreachable', { message: (err as Error).message });
        });
      if (res.status === 200 && isVerdict(res.data)) return res.data;
      if (res.status === 404) {
        throw ValidationError.field(
          ['body', 'agent_id'],
          `RAI policy ${policyId} of the agent's RAI feature not found`,
          'policy_not_found',
        );
      }
      if (res.status === 422 && direction === 'input') {
        throw ValidationError.field(
          ['body', 'message'],
          'The message cannot be checked by the RAI policy (too long or invalid)',
          'rai_rejected',
        );
      }
      throw unavailable('RAI service answered unexpectedly', { status: res.status });
    },
  };
}

export type RaiClient = ReturnType<typeof createRaiClient>;
