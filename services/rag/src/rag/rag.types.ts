import type { RagConfig } from './rag.schemas.types';

export type { Owner } from '@platform/db';
export type { RagBody as RagInput, RagConfig } from './rag.schemas.types';

/** The credential fields of a configuration, each checked when it names one of our credentials. */
export const CREDENTIAL_FIELDS = ['llm_credential_id', 'embedding_credential_id', 'vector_db_credential_id'] as const;

/** A stored configuration as plain data: what a client sees (`RagConfig`) plus the owner's org. */
export interface RagRecord extends RagConfig {
  org_id: string;
}
