// Generated from rag.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface RagPath {
  config_id: string;
}

export interface RagListQuery {
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface RagBody {
  /**
   * A credential id of the agent service (checked to be the caller's) or any other id (kept as given).
   */
  llm_credential_id: string;
  embedding_credential_id: string;
  vector_db_credential_id: string;
  description: string;
  /**
   * Unique per owner (409).
   */
  collection_name: string;
  llm_model: string;
  embedding_model: string;
  vector_store_provider: string;
  semantic_data_model: boolean;
  meta_data: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
}

export interface RagConfig {
  id: string;
  /**
   * The same id (frontends read `_id`)
   */
  _id: string;
  user_id: string;
  /**
   * A credential id of the agent service (checked to be the caller's) or any other id (kept as given).
   */
  llm_credential_id: string;
  embedding_credential_id: string;
  vector_db_credential_id: string;
  description: string;
  /**
   * Unique per owner (409).
   */
  collection_name: string;
  llm_model: string;
  embedding_model: string;
  vector_store_provider: string;
  semantic_data_model: boolean;
  meta_data: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  created_at: string;
  updated_at: string | null;
}

export interface RagList {
  configs: RagConfig[];
  total: number;
}

/**
 * Partial update: fields not sent keep their values; an explicit null clears a nullable field.
 */
export interface RagPatch {
  /**
   * A credential id of the agent service (checked to be the caller's) or any other id (kept as given).
   */
  llm_credential_id?: string;
  embedding_credential_id?: string;
  vector_db_credential_id?: string;
  description?: string | null;
  /**
   * Unique per owner (409).
   */
  collection_name?: string;
  llm_model?: string;
  embedding_model?: string;
  vector_store_provider?: string;
  semantic_data_model?: boolean | null;
  meta_data?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
}

export interface Retrieval {
  rag_id: string;
  query: string;
  results: {
    chunk_id: string;
    text: string;
    url: string;
    title: string;
    /**
     * Relevance 0–1: the BM25 score s as s / (s + 1), or the cosine similarity of embeddings when higher. Results are in fused-rank order (documents and the knowledge graph).
     */
    score: number;
  }[];
  facts: {
    source: string;
    relation: string;
    target: string;
    weight: number;
    urls: string[];
  }[];
}

export interface RetrieveQuery {
  query: string;
  top_k: number;
}

export interface RagUserPath {
  /**
   * The caller's user id or the caller's own API key
   */
  user_id: string;
}
