import { internalCallHeaders } from '@platform/auth';
import { isObjectIdHex } from '@platform/db';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

import type { Owner } from '../graph/graph.types';

/** The agent service, which owns provider credentials, and how this service reaches it. */
export interface AgentServiceTarget {
  baseUrl: string;
  /** The internal on-behalf-of secret shared with the agent service; null: no credential can be opened. */
  secret: string | null;
  timeoutMs?: number;
}

/** A credential with its key unsealed. Held in memory for the call it serves; never logged. */
export interface OpenedCredential {
  credential_id: string;
  provider_id: string;
  api_key: string;
  base_url: string | null;
}

const isOpened = (v: unknown): v is OpenedCredential => {
  const o = v as Partial<OpenedCredential> | null;
  return (
    !!o &&
    typeof o.api_key === 'string' &&
    o.api_key.length > 0 &&
    (o.base_url === null || typeof o.base_url === 'string')
  );
};

/** Credentials reported missing are logged once each, not on every chunk or question; the memory is bounded. */
const MAX_REMEMBERED_MISSING = 1000;

/**
 * Opens an owner's credential through the agent service's internal route (on behalf of the owner; data ownership:
 * this service never reads the agent's collections). Null when there is nothing to open: no id, an id that is not
 * the agent's, not the owner's, no agent configured, or the agent unreachable; the caller then works locally.
 */
export function createCredentialClient(deps: {
  outbound: OutboundClient;
  target: AgentServiceTarget | null;
  logger: Logger;
}) {
  const base = deps.target?.baseUrl.replace(/\/+$/, '') ?? '';
  const missing = new Set<string>();
  const once = (id: string, message: string, fields: Record<string, unknown>) => {
    if (missing.has(id)) return;
    if (missing.size >= MAX_REMEMBERED_MISSING) missing.clear();
    missing.add(id);
    deps.logger.warn(message, { id, ...fields });
  };
  return {
    async open(owner: Owner, credentialId: string): Promise<OpenedCredential | null> {
      const target = deps.target;
      if (!credentialId) return null;
      if (!isObjectIdHex(credentialId)) {
        once(credentialId, "credential is not one of the agent service's; the local path is used", {});
        return null;
      }
      if (!target?.secret) {
        once(credentialId, 'credential cannot be opened (no agent service secret); the local path is used', {});
        return null;
      }
      try {
        const res = await deps.outbound.request({
          url: `${base}/v3/providers/credentials/${credentialId}/open`,
          method: 'POST',
          headers: internalCallHeaders(target.secret, owner),
          timeoutMs: target.timeoutMs ?? 5_000,
          maxResponseBytes: 64 * 1024,
          maxRedirects: 0,
        });
        if (res.status === 200 && isOpened(res.data)) return res.data;
        if (res.status === 404)
          once(credentialId, 'credential not found at the agent service; the local path is used', {
            user_id: owner.user_id,
          });
        else
          deps.logger.warn('agent service answered a credential open unexpectedly; the local path is used', {
            id: credentialId,
            status: res.status,
          });
      } catch (err) {
        deps.logger.warn('agent service unreachable for a credential open; the local path is used', {
          id: credentialId,
          reason: (err as Error).message,
        });
      }
      return null;
    },
  };
}

export type CredentialClient = ReturnType<typeof createCredentialClient>;
