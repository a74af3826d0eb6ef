import type { Logger } from '@platform/logger';
import type { VectorStores as AllVectorStores, Embeddings, LiveIndexes, VectorStore } from '@platform/retrieval';

import type { RagConfig } from '../rag/rag.types';
import type { DocumentRepository } from './document.repository';
import type { GraphTrainClient } from './graph-train.client';
import type { Owner } from './knowledge.types';
import type { OcrClient } from './ocr.client';

/** The vector stores by `vector_store_provider` (the configuration's). */
export type VectorStores = Pick<AllVectorStores, 'forProvider'>;

export interface KnowledgeServiceDeps {
  /** The caller's configuration, or NotFoundError (the rag service's own check). */
  configOf(owner: Owner, ragId: string): Promise<RagConfig>;
  repo: DocumentRepository;
  /** Chunk and query vectors by the configuration's embedding credential; null: lexical (BM25) only. */
  embeddings: Embeddings | null;
  vectors: VectorStores | null;
  ocr: OcrClient;
  graph: GraphTrainClient;
  logger: Logger;
  clock: () => Date;
  /** Rag ids whose BM25 index is kept in memory at once. */
  maxCachedIndexes?: number;
}

/**
 * What the parts of the knowledge service (knowledge.service.ts, its training in knowledge.train.ts and its search in
 * knowledge.search.ts) share: its dependencies, the rag ids' search indexes and two helpers.
 */
export interface KnowledgeParts extends KnowledgeServiceDeps {
  index: LiveIndexes;
  /** The knowledge base of a rag id changed (the repository logged it). */
  changed: (ragId: string) => void;
  /** The configuration's vector store; null without vectors. */
  storeOf: (config: RagConfig) => VectorStore | null;
}
