import { atomicUpdateOne, findPage, fromJsonText, toJsonText, type Connection, type Page } from '@platform/db';

import { knowledgeModels, type ChunkDoc, type DocumentDoc } from './document.model';
import type { DocumentKind } from './knowledge.types';

/** Writes per statement: FerretDB answers large batches slowly, so inserts and `$in` lists go 50 at a time. */
export const WRITE_BATCH = 50;

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

function batches<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += WRITE_BATCH) out.push(items.slice(i, i + WRITE_BATCH));
  return out;
}

/** Documents, chunks and the per-rag-id revision; every read and write is scoped to one rag id. */
export function createDocumentRepository(conn: Connection) {
  const { Document, Chunk, State } = knowledgeModels(conn);
  return {
    /** Stores documents with their chunks (chunks first: a document is listed only once its chunks are stored). */
    async insert(documents: DocumentRecord[], chunks: ChunkRecord[]): Promise<void> {
      try {
        for (const batch of batches(chunks))
          await Chunk.insertMany(
            batch.map(({ id, ...c }) => ({ _id: id, ...c })),
            { ordered: true },
          );
        for (const batch of batches(documents))
          await Document.insertMany(
            batch.map(({ id, metadata, created_at, ...d }) => ({
              _id: id,
              ...d,
              metadata_json: toJsonText(metadata) ?? '{}',
              created_at: new Date(created_at),
            })),
            { ordered: true },
          );
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
      const found: { id: string; kind: DocumentKind }[] = [];
      for (const batch of batches(ids)) {
        const rows = await Document.find({ rag_id: ragId, _id: { $in: batch } }, { _id: 1, kind: 1 }).lean<
          { _id: string; kind: DocumentKind }[]
        >();
        found.push(...rows.map((r) => ({ id: r._id, kind: r.kind })));
      }
      return found;
    },
    /** Whether the rag id has a website document (whose pages live in the knowledge graph). */
    async hasWebsite(ragId: string): Promise<boolean> {
      return (await Document.exists({ rag_id: ragId, kind: 'website' })) !== null;
    },
    /** Removes the documents `ids` of the rag id and their chunks; how many documents were removed. */
    async remove(ragId: string, ids: string[]): Promise<number> {
      let deleted = 0;
      for (const batch of batches(ids)) {
        await Chunk.deleteMany({ rag_id: ragId, document_id: { $in: batch } });
        deleted += (await Document.deleteMany({ rag_id: ragId, _id: { $in: batch } })).deletedCount;
      }
      return deleted;
    },
    /** Removes every document and chunk of the rag id; how many documents were removed. */
    async reset(ragId: string): Promise<number> {
      await Chunk.deleteMany({ rag_id: ragId });
      return (await Document.deleteMany({ rag_id: ragId })).deletedCount;
    },
    async chunks(ragId: string): Promise<ChunkRecord[]> {
      return (await Chunk.find({ rag_id: ragId }).lean<ChunkDoc[]>()).map(toChunk);
    },
    async chunksByIds(ragId: string, ids: string[]): Promise<ChunkRecord[]> {
      const out: ChunkRecord[] = [];
      for (const batch of batches(ids))
        out.push(...(await Chunk.find({ rag_id: ragId, _id: { $in: batch } }).lean<ChunkDoc[]>()).map(toChunk));
      return out;
    },
    async revision(ragId: string): Promise<number> {
      return (await State.findById(ragId).lean<{ revision: number }>())?.revision ?? 0;
    },
    /** Marks the rag id's knowledge as changed (every replica's search index is rebuilt on its next read). */
    async bump(ragId: string): Promise<void> {
      await atomicUpdateOne(State, { _id: ragId }, { $inc: { revision: 1 } }, { upsert: true });
    },
  };
}

export type DocumentRepository = ReturnType<typeof createDocumentRepository>;
