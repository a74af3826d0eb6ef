import type { Connection } from '@platform/db';
import { createIndexLog, type ChunkRecord, type LiveIndexStore } from '@platform/retrieval';

import { createHitFacts } from './graph.hit-facts';
import {
  GRAPH_INDEX_LOG,
  graphModels,
  type ChunkDoc,
  type EntityDoc,
  type PageDoc,
  type PageFactsDoc,
  type RelationDoc,
} from './graph.model';
import { chunkRecord, entityRows, relationRows, sumEntities, sumRelations } from './graph.record';
import { createPageReplacer, deletePageRows } from './graph.replace-pages';
import type { EntityRecord, RelationRecord } from './graph.types';

/**
 * The graphs, one per rag_id: pages, chunks, entities and relations, and the change log of their search indexes.
 * The queries are here and in graph.replace-pages.ts (a batch of trained pages written) and graph.hit-facts.ts (what
 * a search's hits state); the mapping of stored rows to records is graph.record.ts.
 */
export function createGraphRepository(conn: Connection) {
  const m = graphModels(conn);

  const log = createIndexLog(conn, GRAPH_INDEX_LOG);

  /** The search index's storage (libs/retrieval's live indexes read and write it). */
  const indexStore: LiveIndexStore = {
    ...log.store,
    async allChunks(ragId) {
      return repo.chunks(ragId, true);
    },
    async texts(_ragId, ids) {
      const docs = await Promise.all(ids.map((id) => m.Chunk.findOne({ _id: id }, { text: 1 }).lean()));
      return new Map(docs.filter((d) => d !== null).map((d) => [d._id, d.text]));
    },
  };

  const repo = {
    indexStore,
    /** Replaces everything a batch of trained pages contributed, with one change of the search index (see there). */
    replacePages: createPageReplacer(m, log),
    /**
     * The URLs of the graph's pages, read once when a training starts: `replacePages` deletes the old rows of those
     * only (and adds what it writes), instead of looking each batch up.
     */
    async knownUrls(ragId: string): Promise<Set<string>> {
      const rows = await m.Page.find({ rag_id: ragId }, { url: 1 }).lean<Pick<PageDoc, 'url'>[]>();
      return new Set(rows.map((r) => r.url));
    },
    async countPages(ragId: string): Promise<number> {
      return m.Page.countDocuments({ rag_id: ragId });
    },
    async pages(ragId: string, limit: number): Promise<{ url: string; title: string }[]> {
      const rows = await m.Page.find({ rag_id: ragId }).sort({ url: 1 }).limit(limit).lean();
      return rows.map((p) => ({ url: p.url, title: p.title ?? '' }));
    },
    /** Every chunk of a graph (for building its search index), embeddings included only when asked. */
    async chunks(ragId: string, withEmbeddings = false): Promise<ChunkRecord[]> {
      const rows = await m.Chunk.find(
        { rag_id: ragId },
        withEmbeddings ? { stated: 0 } : { stated: 0, embedding: 0 },
      ).lean<ChunkDoc[]>();
      return rows.map(chunkRecord);
    },
    /** The graph's entities and relations, each summed over the pages (and legacy rows) that state it. */
    async facts(ragId: string): Promise<{ entities: EntityRecord[]; relations: RelationRecord[] }> {
      const where = { rag_id: ragId };
      const [docs, legacyEntities, legacyRelations] = await Promise.all([
        m.Facts.find(where).lean<PageFactsDoc[]>(),
        m.Entity.find(where).lean<EntityDoc[]>(),
        m.Relation.find(where).lean<RelationDoc[]>(),
      ]);
      return {
        entities: sumEntities([...docs.flatMap(entityRows), ...legacyEntities]),
        relations: sumRelations([...docs.flatMap(relationRows), ...legacyRelations]),
      };
    },
    /** A search's hits: their texts, and the relations their chunks state with their entities' names (see there). */
    factsOfHits: createHitFacts(m),
    /** Removes a whole graph (a knowledge base's reset, deletion of a RAG configuration); the pages it had. */
    async dropGraph(ragId: string): Promise<number> {
      const where = { rag_id: ragId };
      const [pages] = await Promise.all([m.Page.deleteMany(where), deletePageRows(m, where)]);
      await log.append(ragId, { reset: true, removeUrls: [], add: [] });
      return pages.deletedCount;
    },
    /**
     * Forgets knowledge-base documents: a page reached only by them goes with everything it contributed (chunks,
     * entities, relations); a page another document reached too stays, without these ids. The pages removed.
     */
    async deleteSources(ragId: string, sourceIds: string[]): Promise<number> {
      const ids = new Set(sourceIds);
      const pages = await m.Page.find({ rag_id: ragId, source_ids: { $in: sourceIds } }, { url: 1, source_ids: 1 })
        .lean<Pick<PageDoc, 'url' | 'source_ids'>[]>()
        .exec();
      if (pages.length === 0) return 0;
      const onlyThese = (p: Pick<PageDoc, 'source_ids'>) => (p.source_ids ?? []).every((id) => ids.has(id));
      const gone = pages.filter(onlyThese).map((p) => p.url);
      const kept = pages.filter((p) => !onlyThese(p)).map((p) => p.url);
      const where = { rag_id: ragId, url: { $in: gone } };
      if (gone.length > 0) await Promise.all([deletePageRows(m, where), m.Page.deleteMany(where)]);
      if (kept.length > 0)
        await m.Page.updateMany({ rag_id: ragId, url: { $in: kept } }, { $pullAll: { source_ids: sourceIds } });
      if (gone.length > 0) await log.append(ragId, { removeUrls: gone, add: [] });
      return gone.length;
    },
  };
  return repo;
}

export type GraphRepository = ReturnType<typeof createGraphRepository>;
