import Joi from 'joi';

import { isObjectIdHex, type Owner } from '@platform/db';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, operationCall, siblingOperation, type ServiceTarget } from '@platform/service-client';

/** The agent service, which owns provider credentials, and how rag reaches it. */
export type AgentServiceTarget = ServiceTarget;

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

/** The agent's answer to a credential read: only its presence matters here. */
const credentialFound = Joi.object<Record<string, unknown>>().unknown(true);

/** One of the agent service's credentials (only whether the owner has it is read). */
const CREDENTIAL_READ = siblingOperation({
  service: 'agent',
  method: 'GET',
  path: '/v3/providers/credentials/{credential_id}',
  response: credentialFound,
});

/**
 * Credential ownership, asked of the agent service on behalf of the caller (it answers 404 for another owner's
 * credential exactly as for a missing one). An agent service that cannot answer → 503, never a silent pass.
 */
export function createCredentialCheck({ outbound, target, logger }: CredentialCheckDeps): CredentialCheck {
  const agent = createServiceClient({ outbound, target, logger, name: 'agent service' });
  return {
    isOurs: (id) => isObjectIdHex(id),
    async belongsTo(owner, id) {
      const found = await agent.call<Record<string, unknown> | null>({
        what: 'a credential check',
        ...operationCall(CREDENTIAL_READ, { credential_id: id }),
        owner,
        on: { 404: () => null },
        timeoutMs: target.timeoutMs ?? 5_000,
        maxResponseBytes: 64 * 1024,
      });
      return found !== null;
    },
  };
}
