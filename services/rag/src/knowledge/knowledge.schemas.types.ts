// Generated from knowledge.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface DeletedDocuments {
  /**
   * Documents removed (with their chunks and vectors).
   */
  deleted: number;
}

export type DocumentIds = string[];

export interface DocumentList {
  documents: {
    id: string;
    source: string;
    kind: 'text' | 'pdf' | 'txt' | 'docx' | 'website';
    metadata: {
      /**
       * Unknown Property
       */
      [x: string]: unknown;
    };
    chunks: number;
    created_at: string;
  }[];
  total: number;
}

export interface DocumentsQuery {
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface TrainFileForm {
  /**
   * Characters per chunk.
   */
  chunk_size: number;
  /**
   * Characters shared by consecutive chunks; less than chunk_size.
   */
  chunk_overlap: number;
  /**
   * The parser the hosted product would use (llmsherpa, pymupdf, unstructured, txt_parser, docx2txt, …): recorded in the metadata; the text is always read by this service’s own extractor.
   */
  data_parser?: string;
  /**
   * A JSON object, kept as the document’s metadata.
   */
  extra_info?: string;
}

export interface KnowledgePath {
  /**
   * A RAG configuration of the caller's; another owner's → 404.
   */
  rag_id: string;
}

export interface TrainQuery {
  /**
   * A RAG configuration of the caller's; another owner's → 404.
   */
  rag_id: string;
}

export interface TrainResult {
  message: string;
  rag_id: string;
  documents: {
    id: string;
    source: string;
  }[];
  /**
   * Chunks stored; for a website, the pages the knowledge graph trained.
   */
  chunks: number;
}

export interface TrainTextBody {
  /**
   * Each item becomes one document.
   */
  data: {
    text: string;
    /**
     * Where the text came from (a URL, a file name); shown as its title.
     */
    source: string;
    /**
     * A JSON object (at most 16384 bytes, 8 levels).
     */
    metadata: {
      /**
       * Unknown Property
       */
      [x: string]: unknown;
    };
  }[];
  /**
   * Characters per chunk.
   */
  chunk_size: number;
  /**
   * Characters shared by consecutive chunks; less than chunk_size.
   */
  chunk_overlap: number;
}

/**
 * Passed to the knowledge graph crawl (POST /v4/knowledge_graph/website/), whose limits apply.
 */
export interface TrainWebsiteBody {
  /**
   * Start URLs (http/https); each becomes one document.
   */
  urls: string[];
  source?: string;
  max_crawl_pages?: number;
  max_crawl_depth?: number;
  dynamic_content_wait_secs?: number;
  actor?: string;
  crawler_type?: string;
  chunk_size?: number;
  chunk_overlap?: number;
}
