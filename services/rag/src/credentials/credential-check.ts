import { internalCallHeaders } from '@platform/auth';
import { isObjectIdHex, type Owner } from '@platform/db';
import { ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

/** The agent service, which owns provider credentials, and how rag reaches it. */
export interface AgentServiceTarget {
  baseUrl: string;
  /** The internal on-behalf-of secret shared with the agent service; null: ids of ours cannot be checked. */
  secret: string | null;
  timeoutMs?: number;
}

export interface CredentialCheckDeps {
  outbound: OutboundClient;
  target: AgentServiceTarget;
  logger: Logger;
}

/** Answers whether a credential id belongs to the owner; ids not in the agent service's format are not ours. */
export interface CredentialCheck {
  /** True when the id is one of ours (24-char hex) and the owner's; false when ours and not the owner's. */
  belongsTo(owner: Owner, id: string): Promise<boolean>;
  /** Whether an id names one of the agent service's credentials (and so must be checked). */
  isOurs(id: string): boolean;
}

/**
 * Credential ownership, asked of the agent service on behalf of the caller (it answers 404 for another owner's
 * credential exactly as for a missing one). An agent service that cannot answer → 503, never a silent pass.
 */
export function createCredentialCheck({ outbound, target, logger }: CredentialCheckDeps): CredentialCheck {
  const base = target.baseUrl.replace(/\/+$/, '');
  return {
    isOurs: (id) => isObjectIdHex(id),
    async belongsTo(owner, id) {
      if (!target.secret) {
        logger.error('credential check impossible: INTERNAL_SERVICE_SECRET is not set');
        throw new ServiceUnavailableError();
      }
      const res = await outbound
        .request({
          url: `${base}/v3/providers/credentials/${id}`,
          method: 'GET',
          headers: internalCallHeaders(target.secret, owner),
          timeoutMs: target.timeoutMs ?? 5_000,
          maxResponseBytes: 64 * 1024,
          maxRedirects: 0,
        })
        .catch((err: unknown) => {
          logger.warn('agent service unreachable for a credential check', { message: (err as Error).message });
          throw new ServiceUnavailableError(err);
        });
      if (res.status === 200) return true;
      if (res.status === 404) return false;
      logger.warn('agent service answered a credential check unexpectedly', { status: res.status });
      throw new ServiceUnavailableError();
    },
  };
}
