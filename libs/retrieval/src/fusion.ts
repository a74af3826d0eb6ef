/** An item of one ranking: its id and its score in that ranking (higher = better; scales differ between rankings). */
export interface Ranked {
  id: string;
  score: number;
}

/** The constant of reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): 60, the value the paper found best. */
export const RRF_K = 60;

export interface FuseOptions {
  /** The RRF constant (default RRF_K): larger values flatten the advantage of the top ranks. */
  k?: number;
  /** A weight per list (default 1 each), e.g. to favour the vector ranking. */
  weights?: number[];
  /** Items returned (default all). */
  limit?: number;
}

/**
 * Hybrid ranking of several result lists (BM25 and vector search) by reciprocal rank fusion: an item's score is the
 * sum over the lists it is in of `weight / (k + rank)`, rank counted from 1 in each list ordered by its score.
 *
 * Why RRF rather than a blend of normalised scores: BM25 scores are unbounded and depend on the query and the
 * corpus, cosine similarities sit in a narrow band near the top of [-1, 1]; min-max normalisation lets one outlier
 * (or a list of one item) decide the scale. Ranks need no calibration, and an item found by both rankings rises
 * above one found by a single ranking at the same rank.
 *
 * Ties: items with the same score in a list share the rank of the first of them, so the order in which a store
 * returned equal scores changes nothing. Items with the same fused score are ordered by their best rank in any
 * list, then by id, so the result is deterministic. An item appearing twice in one list counts once (its best
 * score).
 */
export function fuseRankings(lists: Ranked[][], opts: FuseOptions = {}): Ranked[] {
  const k = opts.k ?? RRF_K;
  const fused = new Map<string, { score: number; best: number }>();
  lists.forEach((list, n) => {
    const weight = opts.weights?.[n] ?? 1;
    const best = new Map<string, number>();
    for (const item of list) {
      if (!Number.isFinite(item.score)) continue;
      const seen = best.get(item.id);
      if (seen === undefined || item.score > seen) best.set(item.id, item.score);
    }
    const ordered = [...best].sort((a, b) => b[1] - a[1]);
    let rank = 0;
    ordered.forEach(([id, score], i) => {
      if (i === 0 || score !== ordered[i - 1]![1]) rank = i + 1;
      const entry = fused.get(id) ?? { score: 0, best: Infinity };
      entry.score += weight / (k + rank);
      entry.best = Math.min(entry.best, rank);
      fused.set(id, entry);
    });
  });
  const out = [...fused]
    .sort((a, b) => b[1].score - a[1].score || a[1].best - b[1].best || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([id, e]) => ({ id, score: e.score }));
  return opts.limit === undefined ? out : out.slice(0, Math.max(0, opts.limit));
}

/** The BM25 score whose relevance is 0.5 (`lexicalRelevance`). */
export const LEXICAL_RELEVANCE_HALF = 1;

/**
 * A BM25 score as a relevance between 0 and 1, the same for every corpus and query: s / (s + 1). A match on a word
 * rare in the corpus (BM25 well above 1) comes near 1; a match on common words only stays below 0.5. Rankings are
 * fused by rank, whose scores mean nothing to a client: this is what an answer's `score` carries (the cosine
 * similarity of embeddings is one already), so that a client's `score_threshold` (0.4 is common) means the same on
 * a knowledge base of three documents and of a million, and across several knowledge bases.
 */
export function lexicalRelevance(bm25: number): number {
  return bm25 > 0 ? bm25 / (bm25 + LEXICAL_RELEVANCE_HALF) : 0;
}
