import { isObjectIdHex, type Owner } from '@platform/db';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, operationCall, siblingOperation, type ServiceTarget } from '@platform/service-client';

import { openedCredential } from './credential.schemas';
import type { OpenedCredential } from './credential.schemas.types';

/** The agent service's opening of a credential (its key unsealed) for its owner. */
const CREDENTIAL_OPEN = siblingOperation({
  service: 'agent',
  method: 'POST',
  path: '/v3/providers/credentials/{credential_id}/open',
  response: openedCredential,
});

/** The agent service, which owns provider credentials, and how this service reaches it (null secret: none opens). */
export type AgentServiceTarget = ServiceTarget;

export type { OpenedCredential };

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
  const agent = createServiceClient({ ...deps, name: 'agent service' });
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
        return await agent.call<OpenedCredential | null>({
          what: 'a credential open',
          ...operationCall(CREDENTIAL_OPEN, { credential_id: credentialId }),
          owner,
          on: {
            404: () => {
              once(credentialId, 'credential not found at the agent service; the local path is used', {
                user_id: owner.user_id,
              });
              return null;
            },
          },
          timeoutMs: target.timeoutMs ?? 5_000,
          maxResponseBytes: 64 * 1024,
        });
      } catch (err) {
        deps.logger.warn('agent service could not open a credential; the local path is used', {
          id: credentialId,
          reason: (err as Error).message,
        });
      }
      return null;
    },
  };
}

export type CredentialClient = ReturnType<typeof createCredentialClient>;
