import { fuseRankings, lexicalRelevance } from '@platform/retrieval';

import type { Retrieval } from '../rag/rag.schemas.types';
import type { RagConfig } from '../rag/rag.types';
import type { KnowledgeParts } from './knowledge.deps';
import type { Owner } from './knowledge.types';

/** One retrieved chunk as `Retrieval.results` lists it. */
type RetrievedChunk = Retrieval['results'][number];

/** Candidates read per ranking before fusion, as a multiple of top_k. */
const CANDIDATES_PER_RESULT = 4;

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** The knowledge service's search: its own documents (BM25 and vectors), and with the knowledge graph's answer. */
export function knowledgeSearch(parts: KnowledgeParts) {
  const { repo, logger, index, storeOf } = parts;
  return {
    /** The best chunks of the trained documents: BM25 and vector rankings fused. */
    async search(owner: Owner, config: RagConfig, query: string, topK: number): Promise<RetrievedChunk[]> {
      const k = topK * CANDIDATES_PER_RESULT;
      const lexical = await index.rank(config.id, query, k);
      if (lexical.length === 0 && (await index.size(config.id)).chunks === 0) return [];
      const rankings = [lexical.map((h) => ({ id: h.id, score: h.score }))];
      const store = storeOf(config);
      if (parts.embeddings && store) {
        const vector = await parts.embeddings.embedQuery(
          owner,
          config.embedding_credential_id,
          config.embedding_model,
          query,
          { rag_id: config.id },
        );
        if (vector) {
          const hits = await store.search(config.id, vector, k).catch((err: unknown) => {
            logger.warn('vector search failed; lexical only', { rag_id: config.id, reason: (err as Error).message });
            return [];
          });
          rankings.push(hits.map((h) => ({ id: h.id, score: h.score })));
        }
      }
      const fused = fuseRankings(rankings).slice(0, topK);
      const relevance = relevanceOf(rankings);
      // Texts of the answers only; sources of lexical hits are in the index, of vector-only hits in the chunks.
      const texts = await index.texts(
        config.id,
        fused.map((f) => f.id),
      );
      const sources = new Map(lexical.map((h) => [h.id, h.title]));
      const unsourced = fused.filter((f) => !sources.has(f.id)).map((f) => f.id);
      for (const c of await repo.chunksByIds(config.id, unsourced)) sources.set(c.id, c.source);
      return fused.flatMap((f) => {
        const text = texts.get(f.id);
        const source = sources.get(f.id);
        if (text === undefined || source === undefined) return []; // deleted since the index was read
        const score = relevance.get(f.id) ?? 0;
        return [{ chunk_id: f.id, text, url: isUrl(source) ? source : '', title: source, score }];
      });
    },

    /**
     * The trained documents and the knowledge graph searched together, their rankings fused. Either failing leaves
     * the other's answer (logged); both failing, or the graph failing with no document found, → the graph's error.
     */
    async retrieve(
      owner: Owner,
      ragId: string,
      query: string,
      topK: number,
      graph: (config: RagConfig) => Promise<Retrieval>,
    ): Promise<Retrieval> {
      const config = await parts.configOf(owner, ragId);
      const [docs, kg] = await Promise.allSettled([this.search(owner, config, query, topK), graph(config)]);
      if (docs.status === 'rejected') {
        logger.warn('document retrieval failed; knowledge graph only', {
          rag_id: config.id,
          reason: (docs.reason as Error).message,
        });
        if (kg.status === 'rejected') throw kg.reason;
        return kg.value;
      }
      if (kg.status === 'rejected') {
        if (docs.value.length === 0) throw kg.reason;
        logger.warn('knowledge graph retrieval failed; documents only', {
          rag_id: config.id,
          reason: (kg.reason as Error).message,
        });
        return { rag_id: config.id, query, results: docs.value, facts: [] };
      }
      if (docs.value.length === 0) return kg.value;
      if (kg.value.results.length === 0) return { ...kg.value, results: docs.value };
      const all = new Map([...kg.value.results, ...docs.value].map((r) => [r.chunk_id, r]));
      const fused = fuseRankings([
        docs.value.map((r) => ({ id: r.chunk_id, score: r.score })),
        kg.value.results.map((r) => ({ id: r.chunk_id, score: r.score })),
      ]).slice(0, topK);
      // Ranked by the fused ranks; each result keeps its own relevance (0–1) as its score.
      return { ...kg.value, results: fused.map((f) => all.get(f.id)!) };
    },
  };
}

/**
 * The relevance (0–1) of each candidate: its BM25 score as `lexicalRelevance`, or the cosine similarity of its
 * embedding to the question's (negative counted 0), whichever is higher.
 */
function relevanceOf(rankings: { id: string; score: number }[][]): Map<string, number> {
  const [lexical = [], ...vectors] = rankings;
  const out = new Map<string, number>();
  const keep = (id: string, v: number) => out.set(id, Math.max(out.get(id) ?? 0, Math.min(1, Math.max(0, v))));
  for (const h of lexical) keep(h.id, lexicalRelevance(h.score));
  for (const list of vectors) for (const h of list) keep(h.id, h.score);
  for (const [id, v] of out) out.set(id, Number(v.toFixed(6)));
  return out;
}
