export type { Owner } from '@platform/db';

/** The credential fields of a configuration, each checked when it names one of our credentials. */
export const CREDENTIAL_FIELDS = ['llm_credential_id', 'embedding_credential_id', 'vector_db_credential_id'] as const;

/** The client-settable fields of a RAG configuration (create and update bodies, defaults applied). */
export interface RagInput {
  llm_credential_id: string;
  embedding_credential_id: string;
  vector_db_credential_id: string;
  description: string;
  collection_name: string;
  llm_model: string;
  embedding_model: string;
  vector_store_provider: string;
  semantic_data_model: boolean;
  meta_data: Record<string, unknown>;
}

/** A stored configuration as plain data. */
export interface RagRecord extends RagInput {
  id: string;
  user_id: string;
  org_id: string;
  created_at: string;
  updated_at: string | null;
}

/** What a client sees: the record without the org (the spec's fields plus timestamps). */
export type RagView = Omit<RagRecord, 'org_id'>;
