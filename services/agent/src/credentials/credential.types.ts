import type { Owner } from '@platform/db';

export type { Owner };

/** The type a credential has when the client names none. */
export const DEFAULT_CREDENTIAL_TYPE = 'llm';

export type MetaData = Record<string, unknown>;

/**
 * Provider-specific keys of a credential's `credentials` (beside api_key and base_url) that name where or what, not a
 * secret: stored in clear and returned as sent. Every other such key is sealed like the api key and read as "***".
 */
export const CLEAR_CREDENTIAL_KEYS: ReadonlySet<string> = new Set([
  'url',
  'host',
  'port',
  'api_url',
  'api_base',
  'api_version',
  'endpoint',
  'endpoint_url',
  'region',
  'aws_region',
  'database',
  'collection_name',
  'index_name',
  'namespace',
  'environment',
  'project_id',
  'deployment_name',
  'username',
]);

/** Provider-specific keys of a credential: the clear ones (and any sent as null) as sent, the others sealed. */
export interface CredentialExtras {
  extra: Record<string, string | null>;
  extra_sealed: Record<string, string>;
}

export type {
  Credential as CredentialView,
  CredentialBody as CredentialInput,
  CredentialList,
  CredentialUpdate,
  CredentialUpdated,
  OpenedCredential,
} from './credential.schemas.types';

/** A stored credential with its secret still sealed. */
export interface CredentialRecord extends Owner, CredentialExtras {
  credential_id: string;
  name: string;
  provider_id: string;
  type: string;
  api_key_sealed: string | null;
  base_url: string | null;
  meta_data: MetaData;
  created_at: string;
  updated_at: string | null;
}

/**
 * The stored fields an update may change (the secrets sealed). `extra` and `extra_sealed` hold only the
 * provider-specific keys that change: each is set there and removed from the other map; other keys keep their values.
 */
export type CredentialChanges = Partial<
  Pick<CredentialRecord, 'name' | 'type' | 'api_key_sealed' | 'base_url' | 'meta_data' | 'extra' | 'extra_sealed'>
>;

/** Which credentials a list returns besides the owner's: a type, and optionally a provider (any case). */
export interface CredentialFilter {
  type?: string;
  provider_id?: string;
}
