import type { RagConfig } from './rag.schemas.types';

export type { Owner } from '@platform/db';
export type { RagBody as RagInput, RagConfig, RagPatch } from './rag.schemas.types';

/** The credential fields of a configuration, each checked when it names one of our credentials. */
export const CREDENTIAL_FIELDS = ['llm_credential_id', 'embedding_credential_id', 'vector_db_credential_id'] as const;

/** A stored configuration as plain data: what a client sees (`RagConfig`, but for its `_id` copy) plus the owner's org. */
export interface RagRecord extends Omit<RagConfig, '_id'> {
  org_id: string;
}
