import type { Owner } from '@platform/db';

export type { Owner };

/** The type a credential has when the client names none (contract §7). */
export const DEFAULT_CREDENTIAL_TYPE = 'llm';

export type MetaData = Record<string, unknown>;

export interface CredentialInput {
  name: string;
  provider_id: string;
  type: string;
  credentials: { api_key: string; base_url?: string | null };
  meta_data: MetaData;
}

/**
 * Body of PUT /v3/providers/credentials/{id}: every field optional. `credentials` merges key by key; a key that is
 * missing or sent masked (`***`) keeps the stored value.
 */
export interface CredentialUpdate {
  name?: string;
  type?: string;
  credentials?: { api_key?: string; base_url?: string | null };
  meta_data?: MetaData;
}

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

/** What a client sees: the secret masked. */
export interface CredentialView {
  credential_id: string;
  name: string;
  provider_id: string;
  type: string;
  credentials: { api_key: string; base_url: string | null };
  meta_data: MetaData;
  created_at: string;
  updated_at: string | null;
}

/** Body of every credential list: the page and the count of every match. */
export interface CredentialList {
  credentials: CredentialView[];
  total: number;
}

/** Body of a successful PUT. */
export interface CredentialUpdated {
  message: 'Credential updated successfully';
  credential_id: string;
}

/** Which credentials a list returns besides the owner's: a type, and optionally a provider (any case). */
export interface CredentialFilter {
  type?: string;
  provider_id?: string;
}

/** What inference uses: the secret opened. Never sent to a client or logged. */
export interface OpenedCredential {
  credential_id: string;
  provider_id: string;
  api_key: string;
  base_url: string | null;
}
