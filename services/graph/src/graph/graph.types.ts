/** The owner of an object: user and organisation. */
export interface Owner {
  user_id: string;
  org_id: string;
}

/** One page's contribution to a graph, as the pipeline produced it. */
export interface TrainedPage {
  url: string;
  title: string;
  chunks: { id: string; ordinal: number; text: string; embedding: number[] | null }[];
  entities: { key: string; name: string; type: string; weight: number; chunk_ids: string[] }[];
  relations: { source: string; target: string; type: string; weight: number; chunk_ids: string[] }[];
}

export interface ChunkRecord {
  id: string;
  rag_id: string;
  url: string;
  title: string;
  ordinal: number;
  text: string;
  embedding: number[] | null;
}

/** An entity of a graph, summed over the pages that mention it. */
export interface EntityRecord {
  key: string;
  name: string;
  type: string;
  weight: number;
  chunk_ids: string[];
  urls: string[];
}

/** A relation of a graph, summed over the pages that state it. */
export interface RelationRecord {
  source: string;
  target: string;
  type: string;
  weight: number;
  chunk_ids: string[];
  urls: string[];
}

export interface GraphNode {
  id: string;
  label: 'Page' | 'Entity';
  name: string;
  type: string;
  weight?: number;
  url?: string;
}

export interface GraphEdge {
  source: string;
  target: string;
  type: string;
  weight: number;
}

/** GET /v4/knowledge_graph/graph/ */
export interface GraphView {
  rag_id: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** One retrieved chunk. */
export interface RetrievedChunk {
  chunk_id: string;
  text: string;
  url: string;
  title: string;
  score: number;
}

/** A relation between entities mentioned by the retrieved chunks, as a sentence-like fact. */
export interface RetrievedFact {
  source: string;
  relation: string;
  target: string;
  weight: number;
  urls: string[];
}

export interface RetrievalResult {
  rag_id: string;
  query: string;
  results: RetrievedChunk[];
  facts: RetrievedFact[];
}
