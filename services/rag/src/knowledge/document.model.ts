import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

import { DOCUMENT_KINDS } from './knowledge.types';

/** A trained document of a RAG configuration (its text lives in its chunks). */
const documentSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    rag_id: { type: String, required: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    source: { type: String, required: true },
    /** Client JSON as text (`toJsonText`): its keys may be ones a document store refuses. */
    metadata_json: { type: String, required: true },
    kind: { type: String, enum: DOCUMENT_KINDS, required: true },
    /** Chunks stored for it (for a website: the pages the graph service trained). */
    chunks: { type: Number, required: true },
    chars: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// A rag id's documents, newest first (the list's order, `findPage`); whether it has one of a kind.
documentSchema.index({ rag_id: 1, created_at: -1, _id: -1 });
documentSchema.index({ rag_id: 1, kind: 1 });

/** One chunk of a document, with its offsets in the document's text. */
const chunkSchema = new mongoose.Schema(
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
// A rag id's chunks, and those of some of its documents.
chunkSchema.index({ rag_id: 1, document_id: 1 });

/** Stored documents and chunks, as their schemas type them. */
export type DocumentDoc = StoredDoc<typeof documentSchema, string>;
export type ChunkDoc = StoredDoc<typeof chunkSchema, string>;

/**
 * The knowledge base's collections: one set for every rag id (never a collection per rag id). Compiled when
 * the app is made, so that `syncIndexes` creates them at startup, before any request.
 */
export function knowledgeModels(conn: Connection) {
  return {
    Document: modelFor(conn, 'KnowledgeDocument', documentSchema, 'knowledge_documents'),
    Chunk: modelFor(conn, 'KnowledgeChunk', chunkSchema, 'knowledge_chunks'),
  };
}
