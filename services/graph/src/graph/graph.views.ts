import { lexicalRelevance, type LexicalHit } from '@platform/retrieval';

import type { Graph, GraphEdge, GraphNode, Retrieval, RetrievedFact } from './graph.schemas.types';
import type { EntityRecord, RelationRecord } from './graph.types';

/** The shapes graph.service.ts answers with, from what the repository read. */

const MAX_FACTS = 10;
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const entityId = (key: string) => `entity:${key}`;
const pageId = (url: string) => `page:${url}`;

/** The graph of `facts` and `pages`: nodes for the `limit` heaviest entities and the pages, edges heaviest first. */
export function graphOf(
  ragId: string,
  { entities, relations }: { entities: EntityRecord[]; relations: RelationRecord[] },
  pages: { url: string; title: string }[],
  limit: number,
): Graph {
  const top = entities.sort((a, b) => b.weight - a.weight || cmp(a.key, b.key)).slice(0, limit);
  const keys = new Set(top.map((e) => e.key));
  const nodes: GraphNode[] = top.map((e) => ({
    id: entityId(e.key),
    label: 'Entity',
    name: e.name,
    type: e.type,
    weight: e.weight,
  }));
  const edges: GraphEdge[] = relations
    .filter((r) => keys.has(r.source) && keys.has(r.target))
    .map((r) => ({ source: entityId(r.source), target: entityId(r.target), type: r.type, weight: r.weight }));
  const shown = new Set(pages.map((p) => p.url));
  for (const p of pages)
    nodes.push({ id: pageId(p.url), label: 'Page', name: p.title || p.url, type: 'PAGE', url: p.url });
  for (const e of top) {
    for (const url of e.urls)
      if (shown.has(url)) edges.push({ source: pageId(url), target: entityId(e.key), type: 'MENTIONS', weight: 1 });
  }
  edges.sort(
    (x, y) => y.weight - x.weight || cmp(x.source, y.source) || cmp(x.target, y.target) || cmp(x.type, y.type),
  );
  return { rag_id: ragId, nodes, edges };
}

/**
 * A retrieval's answer: the ranked chunks with their texts and relevance (0–1, `embedded` when the ranking blended
 * in the query's embedding), and the facts those chunks state.
 */
export function retrievalOf(
  ragId: string,
  query: string,
  ranked: LexicalHit[],
  { texts, relations, names }: { texts: Map<string, string>; relations: RelationRecord[]; names: Map<string, string> },
  embedded: boolean,
): Retrieval {
  const hits = ranked.map((h) => ({ ...h, text: texts.get(h.id) ?? '' }));
  const chosen = relations
    .sort((a, b) => Number(a.type === 'MENTIONED_WITH') - Number(b.type === 'MENTIONED_WITH') || b.weight - a.weight)
    .slice(0, MAX_FACTS);
  const facts: RetrievedFact[] = chosen.map((r) => ({
    source: names.get(r.source) ?? r.source,
    relation: r.type,
    target: names.get(r.target) ?? r.target,
    weight: r.weight,
    urls: r.urls,
  }));
  return {
    rag_id: ragId,
    query,
    results: hits.map((h) => ({
      chunk_id: h.id,
      text: h.text,
      url: h.url,
      title: h.title,
      // Relevance 0–1: the blend is one already; BM25 alone is mapped (see lexicalRelevance).
      score: Number((embedded ? h.score : lexicalRelevance(h.score)).toFixed(6)),
    })),
    facts,
  };
}
