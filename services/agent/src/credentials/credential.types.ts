export interface Owner {
  user_id: string;
  org_id: string;
}

export interface CredentialInput {
  name: string;
  provider_id: string;
  credentials: { api_key: string; base_url?: string | null };
}

/** A stored credential with its secret still sealed. */
export interface CredentialRecord extends Owner {
  credential_id: string;
  name: string;
  provider_id: string;
  api_key_sealed: string;
  base_url: string | null;
  created_at: string;
  updated_at: string | null;
}

/** What a client sees: the secret masked. */
export interface CredentialView {
  credential_id: string;
  name: string;
  provider_id: string;
  credentials: { api_key: string; base_url: string | null };
  created_at: string;
  updated_at: string | null;
}

/** What inference uses: the secret opened. Never sent to a client or logged. */
export interface OpenedCredential {
  credential_id: string;
  provider_id: string;
  api_key: string;
  base_url: string | null;
}
