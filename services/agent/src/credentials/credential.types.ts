import type { Owner } from '@platform/db';

export type { Owner };

/** The type a credential has when the client names none. */
export const DEFAULT_CREDENTIAL_TYPE = 'llm';

export type MetaData = Record<string, unknown>;

export type {
  Credential as CredentialView,
  CredentialBody as CredentialInput,
  CredentialList,
  CredentialUpdate,
  CredentialUpdated,
  OpenedCredential,
} from './credential.schemas.types';

/** A stored credential with its secret still sealed. */
export interface CredentialRecord extends Owner {
  credential_id: string;
  name: string;
  provider_id: string;
  type: string;
  api_key_sealed: string;
  base_url: string | null;
  meta_data: MetaData;
  created_at: string;
  updated_at: string | null;
}

/** The stored fields an update may change (the secret sealed). */
export type CredentialChanges = Partial<
  Pick<CredentialRecord, 'name' | 'type' | 'api_key_sealed' | 'base_url' | 'meta_data'>
>;

/** Which credentials a list returns besides the owner's: a type, and optionally a provider (any case). */
export interface CredentialFilter {
  type?: string;
  provider_id?: string;
}
