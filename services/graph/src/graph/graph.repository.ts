import type { Connection, Owner } from '@platform/db';
import type { ChunkRecord } from '@platform/retrieval';

import { graphModels, type ChunkDoc, type EntityDoc, type PageDoc, type RelationDoc } from './graph.model';
import type { EntityRecord, RelationRecord, TrainedPage } from './graph.types';

const chunkRecord = (d: ChunkDoc): ChunkRecord => ({
  id: d._id,
  rag_id: d.rag_id,
  url: d.url,
  title: d.title ?? '',
  ordinal: d.ordinal,
  text: d.text,
  embedding: d.embedding && d.embedding.length > 0 ? d.embedding : null,
});

/** Sums per-page rows into one record per `keyOf`, weights added, chunk ids and urls united. */
function sumRows<
  D extends { url: string; weight: number; chunk_ids: string[] },
  R extends { weight: number; chunk_ids: string[]; urls: string[] },
>(rows: D[], keyOf: (d: D) => string, make: (d: D) => R): R[] {
  const out = new Map<string, R>();
  for (const d of rows) {
    const k = keyOf(d);
    const r = out.get(k);
    if (!r) {
      out.set(k, { ...make(d), weight: d.weight, chunk_ids: [...d.chunk_ids], urls: [d.url] });
      continue;
    }
    r.weight += d.weight;
    r.chunk_ids.push(...d.chunk_ids);
    if (!r.urls.includes(d.url)) r.urls.push(d.url);
  }
  return [...out.values()];
}

const sumEntities = (rows: EntityDoc[]): EntityRecord[] =>
  sumRows(
    rows,
    (d) => d.key,
    (d) => ({ key: d.key, name: d.name, type: d.type, weight: 0, chunk_ids: [], urls: [] }),
  );
const sumRelations = (rows: RelationDoc[]): RelationRecord[] =>
  sumRows(
    rows,
    (d) => `${d.source}\u0000${d.type}\u0000${d.target}`,
    (d) => ({ source: d.source, target: d.target, type: d.type, weight: 0, chunk_ids: [], urls: [] }),
  );

/** The graphs, one per rag_id: pages, chunks, entities and relations. */
export function createGraphRepository(conn: Connection) {
  const m = graphModels(conn);
  const byPage = (ragId: string, url: string) => ({ rag_id: ragId, url });
  return {
    /**
     * Replaces everything a page contributed to the graph with `page` (so training the same URL again changes
     * nothing but the training time) and marks the graph changed.
     */
    async replacePage(owner: Owner, ragId: string, page: TrainedPage, now: Date, sourceId?: string): Promise<void> {
      const where = byPage(ragId, page.url);
      await Promise.all([m.Chunk.deleteMany(where), m.Entity.deleteMany(where), m.Relation.deleteMany(where)]);
      if (page.chunks.length > 0) {
        await m.Chunk.insertMany(
          page.chunks.map((c) => ({
            _id: c.id,
            ...where,
            title: page.title,
            ordinal: c.ordinal,
            text: c.text,
            embedding: c.embedding,
          })),
        );
      }
      if (page.entities.length > 0) await m.Entity.insertMany(page.entities.map((e) => ({ ...where, ...e })));
      if (page.relations.length > 0) await m.Relation.insertMany(page.relations.map((r) => ({ ...where, ...r })));
      await m.Page.updateOne(
        where,
        {
          $set: {
            ...where,
            user_id: owner.user_id,
            org_id: owner.org_id,
            title: page.title,
            chunk_count: page.chunks.length,
            trained_at: now,
          },
          ...(sourceId ? { $addToSet: { source_ids: sourceId } } : {}),
        },
        { upsert: true },
      );
      await this.touch(ragId);
    },
    /** A new revision token for the graph (a token, not a counter: concurrent writers never share one). */
    async touch(ragId: string): Promise<void> {
      await m.Revision.updateOne(
        { _id: ragId },
        { $set: { revision: Date.now() * 1000 + Math.floor(Math.random() * 1000) } },
        { upsert: true },
      );
    },
    async revision(ragId: string): Promise<number> {
      const d = await m.Revision.findOne({ _id: ragId }).lean();
      return d?.revision ?? 0;
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
      const rows = await m.Chunk.find({ rag_id: ragId }, withEmbeddings ? {} : { embedding: 0 }).lean<ChunkDoc[]>();
      return rows.map(chunkRecord);
    },
    async entities(ragId: string): Promise<EntityRecord[]> {
      return sumEntities(await m.Entity.find({ rag_id: ragId }).lean<EntityDoc[]>());
    },
    async relations(ragId: string): Promise<RelationRecord[]> {
      return sumRelations(await m.Relation.find({ rag_id: ragId }).lean<RelationDoc[]>());
    },
    /** Relations stated by any of the chunks. */
    async relationsOfChunks(ragId: string, chunkIds: string[]): Promise<RelationRecord[]> {
      if (chunkIds.length === 0) return [];
      return sumRelations(await m.Relation.find({ rag_id: ragId, chunk_ids: { $in: chunkIds } }).lean<RelationDoc[]>());
    },
    async entityNames(ragId: string, keys: string[]): Promise<Map<string, string>> {
      if (keys.length === 0) return new Map();
      const rows = await m.Entity.find({ rag_id: ragId, key: { $in: keys } }, { key: 1, name: 1 }).lean<EntityDoc[]>();
      return new Map(rows.map((r) => [r.key, r.name]));
    },
    /** Removes a whole graph (a knowledge base's reset, deletion of a RAG configuration); the pages it had. */
    async dropGraph(ragId: string): Promise<number> {
      const where = { rag_id: ragId };
      const [pages] = await Promise.all([
        m.Page.deleteMany(where),
        m.Chunk.deleteMany(where),
        m.Entity.deleteMany(where),
        m.Relation.deleteMany(where),
      ]);
      await this.touch(ragId);
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
      if (gone.length > 0)
        await Promise.all([
          m.Chunk.deleteMany(where),
          m.Entity.deleteMany(where),
          m.Relation.deleteMany(where),
          m.Page.deleteMany(where),
        ]);
      // $pullAll, not $pull with an $in condition: FerretDB 1.24 leaves the array as it was for the latter.
      if (kept.length > 0)
        await m.Page.updateMany({ rag_id: ragId, url: { $in: kept } }, { $pullAll: { source_ids: sourceIds } });
      await this.touch(ragId);
      return gone.length;
    },
  };
}

export type GraphRepository = ReturnType<typeof createGraphRepository>;
