import type { IndexedChunk } from './lexical-index';

/** A stored chunk of a rag id (a crawled page's, or a knowledge base document's): what the index takes, and its rag id. */
export interface ChunkRecord extends IndexedChunk {
  rag_id: string;
}
