// Generated from credential.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface CredentialBody {
  name: string;
  provider_id: string;
  type: string;
  credentials: {
    api_key: string;
    base_url?: string | null;
  };
  /**
   * Free-form, stored and returned as sent
   */
  meta_data: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
}

export interface Credential {
  credential_id: string;
  name: string;
  provider_id: string;
  type: string;
  credentials: {
    api_key: '***';
    base_url: string | null;
  };
  /**
   * Free-form, stored and returned as sent
   */
  meta_data: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  created_at: string;
  updated_at: string | null;
}

export interface CredentialCreated {
  message: string;
  credential_id: string;
}

export interface CredentialList {
  credentials: Credential[];
  total: number;
}

export interface CredentialPath {
  credential_id: string;
}

export interface CredentialUpdated {
  message: 'Credential updated successfully';
  credential_id: string;
}

export interface CredentialListQuery {
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface OpenedCredential {
  credential_id: string;
  provider_id: string;
  /**
   * The unsealed key
   */
  api_key: string;
  base_url: string | null;
}

export interface CredentialTypePath {
  /**
   * e.g. llm, tool, guardrail
   */
  type: string;
}

export interface CredentialTypeProviderPath {
  /**
   * e.g. llm, tool, guardrail
   */
  type: string;
  /**
   * Compared case-insensitively
   */
  provider_id: string;
}

/**
 * Every field optional. user_id, credential_id and provider_id in the body are ignored.
 */
export interface CredentialUpdate {
  name?: string;
  type?: string;
  /**
   * Merged key by key: a key that is missing or "***" keeps the stored value.
   */
  credentials?: {
    api_key?: string;
    /**
     * null clears it
     */
    base_url?: null | '***';
  };
  /**
   * Replaces the stored meta_data
   */
  meta_data?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
}
