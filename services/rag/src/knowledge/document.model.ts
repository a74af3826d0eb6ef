import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

import { DOCUMENT_KINDS, type DocumentKind } from './knowledge.types';

/** A trained document of a RAG configuration (its text lives in its chunks). */
export interface DocumentDoc {
  _id: string;
  rag_id: string;
  user_id: string;
  org_id: string;
  source: string;
  /** Client JSON as text (`toJsonText`): its keys may be ones a document store refuses. */
  metadata_json: string;
  kind: DocumentKind;
  /** Chunks stored for it (for a website: the pages the graph service trained). */
  chunks: number;
  chars: number;
  created_at: Date;
}

/** One chunk of a document, with its offsets in the document's text. */
export interface ChunkDoc {
  _id: string;
  rag_id: string;
  document_id: string;
  ordinal: number;
  text: string;
  start: number;
  end: number;
  source: string;
}

const documentSchema = new mongoose.Schema<DocumentDoc>(
  {
    _id: { type: String, required: true },
    rag_id: { type: String, required: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    source: { type: String, required: true },
    metadata_json: { type: String, required: true },
    kind: { type: String, enum: DOCUMENT_KINDS, required: true },
    chunks: { type: Number, required: true },
    chars: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
documentSchema.index({ rag_id: 1, created_at: -1 });

const chunkSchema = new mongoose.Schema<ChunkDoc>(
  {
    _id: { type: String, required: true },
    rag_id: { type: String, required: true },
    document_id: { type: String, required: true },
    ordinal: { type: Number, required: true },
    text: { type: String, required: true },
    start: { type: Number, required: true },
    end: { type: Number, required: true },
    source: { type: String, required: true },
  },
  { versionKey: false },
);
chunkSchema.index({ rag_id: 1, document_id: 1 });

/**
 * The knowledge base's collections: one set for every rag id (never a collection per rag id). Compiled when
 * the app is made, so that `syncIndexes` creates them at startup, before any request.
 */
export function knowledgeModels(conn: Connection): {
  Document: Model<DocumentDoc>;
  Chunk: Model<ChunkDoc>;
} {
  return {
    Document: modelFor(conn, 'KnowledgeDocument', documentSchema, 'knowledge_documents'),
    Chunk: modelFor(conn, 'KnowledgeChunk', chunkSchema, 'knowledge_chunks'),
  };
}
