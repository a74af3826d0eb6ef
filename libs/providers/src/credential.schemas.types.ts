// Generated from credential.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface OpenedCredential {
  credential_id: string;
  provider_id: string;
  api_key: string | null;
  base_url: string | null;
}
