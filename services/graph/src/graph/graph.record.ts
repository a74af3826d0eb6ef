import type { ChunkRecord } from '@platform/retrieval';

import { factsId, type ChunkDoc, type PageEntity, type PageFactsDoc, type PageRelation } from './graph.model';
import type { EntityRecord, RelationRecord, TrainedPage } from './graph.types';
import { chunkFactsOf } from './page-trainer';

/** The mapping of the graph's stored rows to the repository's records (graph.repository.ts reads, this maps). */

export const chunkRecord = (d: ChunkDoc): ChunkRecord => ({
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

export type Rows<T> = (T & { url: string })[];

export const sumEntities = (rows: Rows<PageEntity>): EntityRecord[] =>
  sumRows(
    rows,
    (d) => d.key,
    (d) => ({ key: d.key, name: d.name, type: d.type, weight: 0, chunk_ids: [], urls: [] }),
  );
export const sumRelations = (rows: Rows<PageRelation>): RelationRecord[] =>
  sumRows(
    rows,
    (d) => `${d.source}\u0000${d.type}\u0000${d.target}`,
    (d) => ({ source: d.source, target: d.target, type: d.type, weight: 0, chunk_ids: [], urls: [] }),
  );

/** A facts document's rows, each with its page's URL. */
export const entityRows = (d: PageFactsDoc): Rows<PageEntity> => d.entities.map((e) => ({ ...e, url: d.url }));
export const relationRows = (d: PageFactsDoc): Rows<PageRelation> => d.relations.map((r) => ({ ...r, url: d.url }));

/** The chunk documents of trained pages, each with what it states. */
export const chunkDocs = (ragId: string, pages: TrainedPage[]) =>
  pages.flatMap((page) => {
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

/** One facts document per trained page: its entities and relations. */
export const factsDocs = (ragId: string, pages: TrainedPage[]): PageFactsDoc[] =>
  pages.map((page) => ({
    _id: factsId(ragId, page.url),
    rag_id: ragId,
    url: page.url,
    entities: page.entities,
    relations: page.relations,
  }));

/** The chunks of trained pages as the search index's change adds them. */
export const indexedChunks = (pages: TrainedPage[]) =>
  pages.flatMap((page) =>
    page.chunks.map((c) => ({
      id: c.id,
      url: page.url,
      title: page.title,
      ordinal: c.ordinal,
      text: c.text,
      embedding: c.embedding,
    })),
  );
