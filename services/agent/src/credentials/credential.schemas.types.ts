// Generated from credential.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface CredentialBody {
  name: string;
  provider_id: string;
  type: string;
  /**
   * Provider-specific keys beside api_key and base_url (a Qdrant `url`, AWS keys, ...), at most 20 keys in all, each value a string of at most 4096 characters or null, names matching ^(?!(?:api_key|base_url)$)[A-Za-z][A-Za-z0-9_-]{0,63}$; other names are dropped. Stored only: kept and returned, not acted on. url, host, port, api_url, api_base, api_version, endpoint, endpoint_url, region, aws_region, database, collection_name, index_name, namespace, environment, project_id, deployment_name, username are stored in clear and returned as sent; every other key is sealed like api_key and read as "***". At most 16384 characters as JSON, nesting depth at most 1.
   */
  credentials: {
    /**
     * Required unless the credential has provider-specific keys (an AWS credential: aws_access_key_id, aws_secret_access_key, region)
     */
    api_key?: string;
    base_url?: string | null;
    /**
     * A string of at most 4096 characters, or null
     */
    [pattern: string]: unknown;
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
  /**
   * The api key masked; provider-specific keys: url, host, port, api_url, api_base, api_version, endpoint, endpoint_url, region, aws_region, database, collection_name, index_name, namespace, environment, project_id, deployment_name, username as sent, every other one "***" (or null).
   */
  credentials: {
    /**
     * null when the credential has none
     */
    api_key: '***' | null;
    base_url: string | null;
    [pattern: string]: string | null;
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
   * The unsealed key; null when the credential has none
   */
  api_key: string | null;
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
   * Merged key by key: a key that is missing or "***" keeps the stored value; a provider-specific key sent as null is stored as null. Provider-specific keys beside api_key and base_url (a Qdrant `url`, AWS keys, ...), at most 20 keys in all, each value a string of at most 4096 characters or null, names matching ^(?!(?:api_key|base_url)$)[A-Za-z][A-Za-z0-9_-]{0,63}$; other names are dropped. Stored only: kept and returned, not acted on. url, host, port, api_url, api_base, api_version, endpoint, endpoint_url, region, aws_region, database, collection_name, index_name, namespace, environment, project_id, deployment_name, username are stored in clear and returned as sent; every other key is sealed like api_key and read as "***". At most 16384 characters as JSON, nesting depth at most 1.
   */
  credentials?: {
    api_key?: string;
    /**
     * null clears it
     */
    base_url?: null | '***';
    /**
     * A string of at most 4096 characters, or null
     */
    [pattern: string]: unknown;
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
