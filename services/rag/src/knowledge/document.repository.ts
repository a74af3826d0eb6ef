import { findPage, fromJsonText, toJsonText, type Connection, type Page } from '@platform/db';
import { createIndexLog, type IndexedChunk, type LiveIndexStore } from '@platform/retrieval';

import { knowledgeModels, type ChunkDoc, type DocumentDoc } from './document.model';
import type { DocumentKind } from './knowledge.types';

export interface DocumentRecord {
  id: string;
  rag_id: string;
  user_id: string;
  org_id: string;
  source: string;
  metadata: Record<string, unknown>;
  kind: DocumentKind;
  chunks: number;
  chars: number;
  created_at: string;
}

export interface ChunkRecord {
  id: string;
  rag_id: string;
  document_id: string;
  ordinal: number;
  text: string;
  start: number;
  end: number;
  source: string;
}

const toDocument = (d: DocumentDoc): DocumentRecord => ({
  id: d._id,
  rag_id: d.rag_id,
  user_id: d.user_id,
  org_id: d.org_id,
  source: d.source,
  metadata: (fromJsonText(d.metadata_json, {}) ?? {}) as Record<string, unknown>,
  kind: d.kind,
  chunks: d.chunks,
  chars: d.chars,
  created_at: d.created_at.toISOString(),
});

const toChunk = (c: ChunkDoc): ChunkRecord => ({
  id: c._id,
  rag_id: c.rag_id,
  document_id: c.document_id,
  ordinal: c.ordinal,
  text: c.text,
  start: c.start,
  end: c.end,
  source: c.source,
});

/** Where the knowledge bases' search indexes keep their change log, heads and snapshots. */
export const KNOWLEDGE_INDEX_LOG = {
  heads: 'knowledge_index_heads',
  changes: 'knowledge_index_changes',
  parts: 'knowledge_index_parts',
  models: 'Knowledge',
};

/** A chunk as the search index takes it: its document is its "page" (removed together), its source the title. */
const indexed = (c: ChunkRecord): IndexedChunk => ({
  id: c.id,
  url: c.document_id,
  title: c.source,
  ordinal: c.ordinal,
  text: c.text,
  embedding: null,
});

/**
 * Documents and chunks; every read and write is scoped to one rag id. Each write also appends to the rag id's
 * index log, from which every replica keeps its search index up to date (libs/retrieval's live indexes).
 */
export function createDocumentRepository(conn: Connection) {
  const { Document, Chunk } = knowledgeModels(conn);
  const log = createIndexLog(conn, KNOWLEDGE_INDEX_LOG);
  const indexStore: LiveIndexStore = {
    ...log.store,
    allChunks: async (ragId) => (await Chunk.find({ rag_id: ragId }).lean()).map((c) => indexed(toChunk(c))),
    async texts(_ragId, ids) {
      const docs = await Promise.all(ids.map((id) => Chunk.findOne({ _id: id }, { text: 1 }).lean()));
      return new Map(docs.filter((d) => d !== null).map((d) => [d._id, d.text]));
    },
  };
  return {
    indexStore,
    /** Stores documents with their chunks (chunks first: a document is listed only once its chunks are stored). */
    async insert(documents: DocumentRecord[], chunks: ChunkRecord[]): Promise<void> {
      try {
        if (chunks.length > 0)
          await Chunk.insertMany(
            chunks.map(({ id, ...c }) => ({ _id: id, ...c })),
            { ordered: true },
          );
        if (documents.length > 0)
          await Document.insertMany(
            documents.map(({ id, metadata, created_at, ...d }) => ({
              _id: id,
              ...d,
              metadata_json: toJsonText(metadata) ?? '{}',
              created_at: new Date(created_at),
            })),
            { ordered: true },
          );
        if (chunks.length > 0)
          await log.append(documents[0]?.rag_id ?? chunks[0]!.rag_id, { removeUrls: [], add: chunks.map(indexed) });
      } catch (err) {
        // Leaves nothing half-written behind (best effort: the same store just failed).
        const ids = documents.map((d) => d.id);
        await this.remove(documents[0]?.rag_id ?? '', ids).catch(() => undefined);
        throw err;
      }
    },
    list(ragId: string, page: Page): Promise<{ items: DocumentRecord[]; total: number }> {
      return findPage(Document, { rag_id: ragId }, page, toDocument);
    },
    /** Of `ids`, those that are documents of the rag id. */
    async existing(ragId: string, ids: string[]): Promise<{ id: string; kind: DocumentKind }[]> {
      if (ids.length === 0) return [];
      const rows = await Document.find({ _id: { $in: ids }, rag_id: ragId }, { _id: 1, kind: 1 }).lean<
        Pick<DocumentDoc, '_id' | 'kind'>[]
      >();
      return rows.map((r) => ({ id: r._id, kind: r.kind }));
    },
    /** Whether the rag id has a website document (whose pages live in the knowledge graph). */
    async hasWebsite(ragId: string): Promise<boolean> {
      return (await Document.exists({ rag_id: ragId, kind: 'website' })) !== null;
    },
    /** Removes the documents `ids` of the rag id and their chunks; how many documents were removed. */
    async remove(ragId: string, ids: string[]): Promise<number> {
      if (ids.length === 0) return 0;
      await Chunk.deleteMany({ rag_id: ragId, document_id: { $in: ids } });
      const { deletedCount } = await Document.deleteMany({ _id: { $in: ids }, rag_id: ragId });
      await log.append(ragId, { removeUrls: ids, add: [] });
      return deletedCount;
    },
    /** Removes every document and chunk of the rag id; how many documents were removed. */
    async reset(ragId: string): Promise<number> {
      await Chunk.deleteMany({ rag_id: ragId });
      const deleted = (await Document.deleteMany({ rag_id: ragId })).deletedCount;
      await log.append(ragId, { reset: true, removeUrls: [], add: [] });
      return deleted;
    },
    async chunks(ragId: string): Promise<ChunkRecord[]> {
      return (await Chunk.find({ rag_id: ragId }).lean()).map(toChunk);
    },
    async chunksByIds(ragId: string, ids: string[]): Promise<ChunkRecord[]> {
      if (ids.length === 0) return [];
      return (await Chunk.find({ _id: { $in: ids }, rag_id: ragId }).lean()).map(toChunk);
    },
  };
}

export type DocumentRepository = ReturnType<typeof createDocumentRepository>;
