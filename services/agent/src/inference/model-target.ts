import { ValidationError } from '@platform/errors';

import type { AgentRecord } from '../agents/agent.types';
import type { CredentialService } from '../credentials/credential.service';
import type { Owner } from './inference.types';
import { findProvider, SUPPORTED_PROVIDER_IDS } from './providers/provider-registry';
import type { ProviderAdapter, ProviderTarget } from './providers/provider.types';

/** Which protocol, where, with which key and model. */
export interface ModelTarget {
  adapter: ProviderAdapter;
  target: ProviderTarget;
  model: string;
}

/** 422 on the body's agent_id: the agent exists but cannot run as configured. */
const unusable = (msg: string, type: string) => ValidationError.field(['body', 'agent_id'], msg, type);

/** Which protocol, where and with which key: from the agent's provider_id, model and llm_credential_id. */
export async function targetFor(
  credentials: CredentialService,
  owner: Owner,
  agent: AgentRecord,
): Promise<ModelTarget> {
  const credentialId = agent.llm_credential_id;
  if (!credentialId) {
    throw unusable(
      `Agent ${agent.id} has no llm_credential_id: store a provider credential and set its id on the agent`,
      'credential_missing',
    );
  }
  const credential = await credentials.open(owner, credentialId);
  if (!credential) throw unusable(`Credential ${credentialId} of agent ${agent.id} not found`, 'credential_not_found');
  const providerId = agent.provider_id ?? credential.provider_id;
  const provider = findProvider(providerId);
  if (!provider) {
    throw unusable(
      `Provider "${providerId}" of agent ${agent.id} is not supported; use one of: ${SUPPORTED_PROVIDER_IDS.join(', ')}`,
      'provider_unsupported',
    );
  }
  if (!agent.model) throw unusable(`Agent ${agent.id} has no model`, 'model_missing');
  if (credential.api_key === null)
    throw unusable(
      `Credential ${credentialId} of agent ${agent.id} has no api_key: a model provider needs one`,
      'credential_api_key_missing',
    );
  const baseUrl = credential.base_url ?? provider.defaultBaseUrl;
  if (!baseUrl) {
    throw unusable(
      `Provider ${provider.id} needs a base_url on credential ${credentialId} (its server's address, e.g. http://host:8000/v1)`,
      'base_url_missing',
    );
  }
  return {
    adapter: provider.adapter,
    target: { providerId: provider.id, baseUrl, apiKey: credential.api_key },
    model: agent.model,
  };
}
