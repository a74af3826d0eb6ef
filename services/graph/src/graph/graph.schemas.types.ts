// Generated from graph.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

import type { CrawlError } from '../crawl/crawl.schemas.types';

export interface DeleteSourcesBody {
  source_ids: string[];
}

export interface Graph {
  rag_id: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface GraphDeleted {
  deleted: number;
}

export interface GraphEdge {
  source: string;
  target: string;
  type: string;
  weight: number;
}

export interface GraphNode {
  id: string;
  label: 'Page' | 'Entity';
  name: string;
  type: string;
  weight?: number;
  url?: string;
}

export interface GraphQuery {
  /**
   * A RAG configuration of the caller's (rag service); another owner's → 404.
   */
  rag_id: string;
  limit: number;
}

export interface GraphRagQuery {
  /**
   * A RAG configuration of the caller's (rag service); another owner's → 404.
   */
  rag_id: string;
}

export interface Retrieval {
  rag_id: string;
  query: string;
  results: RetrievedChunk[];
  facts: RetrievedFact[];
}

export interface GraphRetrieveQuery {
  /**
   * A RAG configuration of the caller's (rag service); another owner's → 404.
   */
  rag_id: string;
  query: string;
  top_k: number;
}

export interface RetrievedChunk {
  chunk_id: string;
  text: string;
  url: string;
  title: string;
  /**
   * Relevance 0–1: BM25 blended with the cosine similarity of embeddings, or the BM25 score s alone as s / (s + 1).
   */
  score: number;
}

export interface RetrievedFact {
  source: string;
  relation: string;
  target: string;
  weight: number;
  urls: string[];
}

export interface TaskQueued {
  task_id: string;
  rag_id: string;
  status: 'queued';
}

export interface TrainRequest {
  /**
   * Start URLs (http/https); the crawl stays on their sites.
   */
  urls: string[];
  source: string;
  max_crawl_pages: number;
  max_crawl_depth: number;
  dynamic_content_wait_secs: number;
  /**
   * Accepted for compatibility; the crawler is built in.
   */
  actor: string;
  crawler_type: 'cheerio' | 'playwright:chromium';
  chunk_size: number;
  /**
   * At most half of chunk_size.
   */
  chunk_overlap: number;
}

export interface GraphTrainQuery {
  /**
   * A RAG configuration of the caller's (rag service); another owner's → 404.
   */
  rag_id: string;
  /**
   * true: 202 with a task id; the crawl runs on the queue.
   */
  async: boolean;
  /**
   * The rag service's knowledge-base document this training fills: its pages are recorded under it, so that deleting the document (DELETE /v4/knowledge_graph/pages/) removes them.
   */
  source_id?: string;
}

export interface TrainResult {
  message: string;
  rag_id: string;
  pages_trained: number;
  /**
   * Only when some start URLs gave no page while others were trained: each of those, with why.
   */
  errors?: CrawlError[];
}
