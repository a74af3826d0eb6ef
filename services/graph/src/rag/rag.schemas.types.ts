// Generated from rag.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface RagConfig {
  id: string;
  llm_credential_id: string;
  embedding_credential_id: string;
  llm_model: string;
  embedding_model: string;
  meta_data: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
}
