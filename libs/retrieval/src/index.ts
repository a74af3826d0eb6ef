export { chunkText, chunkTextWithOffsets, type TextChunk } from './chunker';
/** Credentials and the OpenAI protocol live in @platform/providers; re-exported for the services that search. */
export {
  createCredentialClient,
  DEFAULT_BASE_URL,
  openedCredential,
  openProviderCall,
  postProvider,
  type AgentServiceTarget,
  type CredentialClient,
  type OpenedCredential,
  type ProviderCall,
  type ProviderCallDeps,
} from '@platform/providers';
export {
  createEmbeddings,
  embedTexts,
  EMBEDDING_BATCH,
  MAX_EMBEDDING_DIMENSIONS,
  type Embedder,
  type Embeddings,
  type EmbeddingsDeps,
} from './embeddings';
export {
  BM25_WEIGHT,
  createLexicalIndex,
  loadLexicalIndex,
  queryTerms,
  type IndexedChunk,
  type LexicalHit,
  type LexicalIndex,
} from './lexical-index';
export {
  createLiveIndexes,
  type IndexChange,
  type IndexHead,
  type LiveHit,
  type LiveIndexes,
  type LiveIndexesDeps,
  type LiveIndexStats,
  type LiveIndexStore,
  type SnapshotRef,
} from './live-index';
export {
  CHANGE_BYTES,
  CHANGES_KEPT_BEHIND_SNAPSHOT,
  createIndexLog,
  indexLogModels,
  SNAPSHOT_PART_BYTES,
  type IndexChangeDoc,
  type IndexHeadDoc,
  type IndexLog,
  type IndexLogNames,
  type IndexLogStore,
  type IndexPartDoc,
} from './index-log';
export type { ChunkRecord } from './chunk-index';
export {
  checkRagId,
  checkVector,
  checkVectorId,
  MAX_VECTOR_ID_LENGTH,
  MAX_VECTOR_SEARCH_K,
  VectorDimensionError,
  VectorInputError,
  type VectorHit,
  type VectorRow,
  type VectorStore,
} from './vector-store';
export { createVectorStores, type VectorStores, type VectorStoresOptions } from './vector-stores';
export { COMPACT_EVERY_WRITES } from './lancedb-store';
export { fuseRankings, LEXICAL_RELEVANCE_HALF, lexicalRelevance, RRF_K, type FuseOptions, type Ranked } from './fusion';
