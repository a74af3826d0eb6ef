/** A stored chunk of a rag id (a crawled page's, or a knowledge base document's), as the index reads it. */
export interface ChunkRecord {
  id: string;
  rag_id: string;
  url: string;
  title: string;
  ordinal: number;
  text: string;
  embedding: number[] | null;
}
