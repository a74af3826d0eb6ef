import { isDuplicateKeyError, type Connection, type Owner } from '@platform/db';
import { createIndexLog, type ChunkRecord, type LiveIndexStore } from '@platform/retrieval';

import {
  factsId,
  GRAPH_INDEX_LOG,
  graphModels,
  type ChunkDoc,
  type EntityDoc,
  type PageDoc,
  type PageEntity,
  type PageFactsDoc,
  type PageRelation,
  type RelationDoc,
} from './graph.model';
import type { EntityRecord, RelationRecord, TrainedPage } from './graph.types';
import { chunkFactsOf } from './page-trainer';

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

type Rows<T> = (T & { url: string })[];

const sumEntities = (rows: Rows<PageEntity>): EntityRecord[] =>
  sumRows(
    rows,
    (d) => d.key,
    (d) => ({ key: d.key, name: d.name, type: d.type, weight: 0, chunk_ids: [], urls: [] }),
  );
const sumRelations = (rows: Rows<PageRelation>): RelationRecord[] =>
  sumRows(
    rows,
    (d) => `${d.source}\u0000${d.type}\u0000${d.target}`,
    (d) => ({ source: d.source, target: d.target, type: d.type, weight: 0, chunk_ids: [], urls: [] }),
  );

/** A facts document's rows, each with its page's URL. */
const entityRows = (d: PageFactsDoc): Rows<PageEntity> => d.entities.map((e) => ({ ...e, url: d.url }));
const relationRows = (d: PageFactsDoc): Rows<PageRelation> => d.relations.map((r) => ({ ...r, url: d.url }));

/** The graphs, one per rag_id: pages, chunks, entities and relations, and the change log of their search indexes. */
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

  /**
   * Whether a graph may still have legacy entity and relation rows (read once per graph and process: nothing writes
   * them any more, so a graph without them never gets any). Spares a search of a graph trained since page facts
   * documents the legacy read.
   */
  const legacyOf = new Map<string, Promise<boolean>>();
  const mayHaveLegacy = (ragId: string) => {
    let p = legacyOf.get(ragId);
    if (!p) {
      p = m.Relation.exists({ rag_id: ragId }).then((r) => r !== null);
      p.catch(() => legacyOf.delete(ragId));
      legacyOf.set(ragId, p);
    }
    return p;
  };

  /**
   * The relations that chunks trained before chunks held them state, from their pages' facts documents (one read by
   * `_id` per page), or for pages trained before those, their legacy rows; with their entities' names.
   */
  async function factsOfOlderChunks(
    ragId: string,
    hits: { id: string; url: string }[],
  ): Promise<{ rows: Rows<PageRelation>; names: Map<string, string> }> {
    const ids = new Set(hits.map((h) => h.id));
    const urls = [...new Set(hits.map((h) => h.url))];
    const docs = await Promise.all(urls.map((u) => m.Facts.findOne({ _id: factsId(ragId, u) }).lean<PageFactsDoc>()));
    const stated = (r: { chunk_ids: string[] }) => r.chunk_ids.some((c) => ids.has(c));
    const found = docs.filter((d) => d !== null);
    const rows = found.flatMap((d) => relationRows(d).filter(stated));
    const names = new Map(found.flatMap((d) => d.entities.map((e) => [e.key, e.name] as const)));
    const missing = urls.filter((u) => !found.some((d) => d.url === u));
    if (missing.length > 0 && (await mayHaveLegacy(ragId))) {
      // The pages' rows, a few tens each, of which those the hits state.
      const legacy = (await m.Relation.find({ rag_id: ragId, url: { $in: missing } }).lean<RelationDoc[]>()).filter(
        stated,
      );
      rows.push(...legacy);
      const keys = [...new Set(legacy.flatMap((r) => [r.source, r.target]))].filter((k) => !names.has(k));
      if (keys.length > 0) {
        const entities = await m.Entity.find({ rag_id: ragId, key: { $in: keys } }, { key: 1, name: 1 }).lean<
          EntityDoc[]
        >();
        for (const e of entities) names.set(e.key, e.name);
      }
    }
    return { rows, names };
  }

  /** Deletes what the matching pages contributed: chunks, facts and legacy entity and relation rows. */
  const deleteRows = async (where: { rag_id: string; url?: { $in: string[] } }) => {
    await Promise.all([
      m.Chunk.deleteMany(where),
      m.Facts.deleteMany(where),
      m.Entity.deleteMany(where),
      m.Relation.deleteMany(where),
    ]);
  };

  const repo = {
    indexStore,
    /**
     * Replaces everything these pages contributed to the graph (so training the same URL again changes nothing but
     * the training time) and writes one change of the search index for them. A batch costs a few commands whatever
     * its size: only the rows of pages the graph had (`known`) are deleted; chunks, the pages' facts (one document
     * per page for its entities and relations) and new pages are inserted by one command each, at once with the
     * index change.
     */
    async replacePages(
      owner: Owner,
      ragId: string,
      pages: TrainedPage[],
      now: Date,
      sourceId: string | undefined,
      known: Set<string>,
    ): Promise<void> {
      if (pages.length === 0) return;
      const urls = pages.map((p) => p.url);
      const old = new Set(urls.filter((u) => known.has(u)));
      for (const u of urls) known.add(u);
      if (old.size > 0) await deleteRows({ rag_id: ragId, url: { $in: [...old] } });
      const chunks = pages.flatMap((page) => {
        const stated = chunkFactsOf(page);
        return page.chunks.map((c) => ({
          _id: c.id,
          rag_id: ragId,
          url: page.url,
          title: page.title,
          ordinal: c.ordinal,
          text: c.text,
          embedding: c.embedding,
          stated: stated.get(c.id),
        }));
      });
      const facts: PageFactsDoc[] = pages.map((page) => ({
        _id: factsId(ragId, page.url),
        rag_id: ragId,
        url: page.url,
        entities: page.entities,
        relations: page.relations,
      }));
      const pageFields = (page: TrainedPage) => ({
        rag_id: ragId,
        url: page.url,
        user_id: owner.user_id,
        org_id: owner.org_id,
        title: page.title,
        chunk_count: page.chunks.length,
        trained_at: now,
      });
      const fresh = pages.filter((p) => !old.has(p.url));
      const update = (page: TrainedPage) =>
        m.Page.updateOne(
          { rag_id: ragId, url: page.url },
          { $set: pageFields(page), ...(sourceId ? { $addToSet: { source_ids: sourceId } } : {}) },
          { upsert: true },
        );
      const writePages = async () => {
        if (fresh.length > 0) {
          try {
            await m.Page.insertMany(
              fresh.map((p) => ({ ...pageFields(p), ...(sourceId ? { source_ids: [sourceId] } : {}) })),
              { lean: true },
            );
          } catch (err) {
            // Another training stored one of them meanwhile: each is upserted instead.
            if (!isDuplicateKeyError(err)) throw err;
            for (const p of fresh) await update(p);
          }
        }
        for (const p of pages.filter((x) => old.has(x.url))) await update(p);
      };
      const added = pages.flatMap((page) =>
        page.chunks.map((c) => ({
          id: c.id,
          url: page.url,
          title: page.title,
          ordinal: c.ordinal,
          text: c.text,
          embedding: c.embedding,
        })),
      );
      // Independent writes, at once: the index change carries the chunks itself.
      const rows = () =>
        Promise.all([
          chunks.length > 0 ? m.Chunk.insertMany(chunks, { lean: true }) : null,
          m.Facts.insertMany(facts, { lean: true }),
        ]);
      const [stored] = await Promise.allSettled([
        rows(),
        writePages(),
        log.append(ragId, { removeUrls: urls, add: added }),
      ]).then((all) => {
        const failed = all.slice(1).find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
        return all;
      });
      if (stored.status === 'rejected') {
        // A page stored meanwhile by another training of the graph (an interrupted run still finishing, another
        // replica): what those pages have is replaced, so that each ends with one copy of its rows.
        if (!isDuplicateKeyError(stored.reason)) throw stored.reason;
        await deleteRows({ rag_id: ragId, url: { $in: urls } });
        await rows();
      }
    },
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
    /**
     * A search's hits: their texts, and the relations their chunks state (summed over their pages, each page's row
     * counted once) with their entities' names. One read by `_id` per hit, of its chunk, which holds both; hits whose
     * chunks were trained before chunks held what they state take it from their pages' facts documents (one read by
     * `_id` per page) or, older still, legacy rows.
     */
    async factsOfHits(
      ragId: string,
      hits: { id: string; url: string }[],
    ): Promise<{ texts: Map<string, string>; relations: RelationRecord[]; names: Map<string, string> }> {
      const docs = await Promise.all(
        hits.map((h) => m.Chunk.findOne({ _id: h.id }, { text: 1, url: 1, stated: 1 }).lean<ChunkDoc>()),
      );
      const texts = new Map<string, string>();
      const names = new Map<string, string>();
      const rows = new Map<string, Rows<PageRelation>[number]>();
      const older: { id: string; url: string }[] = [];
      hits.forEach((h, i) => {
        const d = docs[i];
        if (d) texts.set(h.id, d.text);
        if (!d?.stated) return void older.push(h);
        for (const n of d.stated.names) names.set(n.key, n.name);
        for (const r of d.stated.relations)
          rows.set(`${d.url}\u0000${r.source}\u0000${r.type}\u0000${r.target}`, {
            ...r,
            chunk_ids: [h.id],
            url: d.url,
          });
      });
      const before =
        older.length > 0 ? await factsOfOlderChunks(ragId, older) : { rows: [], names: new Map<string, string>() };
      for (const [k, n] of before.names) if (!names.has(k)) names.set(k, n);
      return { texts, relations: sumRelations([...rows.values(), ...before.rows]), names };
    },
    /** Removes a whole graph (a knowledge base's reset, deletion of a RAG configuration); the pages it had. */
    async dropGraph(ragId: string): Promise<number> {
      const where = { rag_id: ragId };
      const [pages] = await Promise.all([m.Page.deleteMany(where), deleteRows(where)]);
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
      if (gone.length > 0) await Promise.all([deleteRows(where), m.Page.deleteMany(where)]);
      if (kept.length > 0)
        await m.Page.updateMany({ rag_id: ragId, url: { $in: kept } }, { $pullAll: { source_ids: sourceIds } });
      if (gone.length > 0) await log.append(ragId, { removeUrls: gone, add: [] });
      return gone.length;
    },
  };
  return repo;
}

export type GraphRepository = ReturnType<typeof createGraphRepository>;
