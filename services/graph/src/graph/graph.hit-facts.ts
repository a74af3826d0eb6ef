import {
  factsId,
  type ChunkDoc,
  type EntityDoc,
  type graphModels,
  type PageFactsDoc,
  type PageRelation,
  type RelationDoc,
} from './graph.model';
import { relationRows, sumRelations, type Rows } from './graph.record';
import type { RelationRecord } from './graph.types';

type Models = ReturnType<typeof graphModels>;

/** What a search's hits state (graph.repository.ts's `factsOfHits`), over one graph repository's models. */
export function createHitFacts(m: Models) {
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

  /**
   * A search's hits: their texts, and the relations their chunks state (summed over their pages, each page's row
   * counted once) with their entities' names. One read by `_id` per hit, of its chunk, which holds both; hits whose
   * chunks were trained before chunks held what they state take it from their pages' facts documents (one read by
   * `_id` per page) or, older still, legacy rows.
   */
  return async function factsOfHits(
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
  };
}
