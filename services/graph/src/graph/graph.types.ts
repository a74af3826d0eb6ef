/** One page's contribution to a graph, as the pipeline produced it. */
export interface TrainedPage {
  url: string;
  title: string;
  chunks: { id: string; ordinal: number; text: string; embedding: number[] | null }[];
  entities: { key: string; name: string; type: string; weight: number; chunk_ids: string[] }[];
  relations: { source: string; target: string; type: string; weight: number; chunk_ids: string[] }[];
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
