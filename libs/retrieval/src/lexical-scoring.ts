import { dot, lowerBound, unit } from './lexical-arrays';
import type { IndexState, Postings } from './lexical-state';
import { queryTerms } from './lexical-terms';

/** A chunk found by a query: where it is and its score (BM25, or BM25 blended with cosine similarity). */
export interface LexicalHit {
  id: string;
  url: string;
  title: string;
  ordinal: number;
  score: number;
}

/** Share of the normalised BM25 score in a blended score; the rest is the cosine similarity (negative counted 0). */
export const BM25_WEIGHT = 0.5;

const K1 = 1.2;
const B = 0.7;
const D = 0.5;
const TITLE_BOOST = 1.5;
const PREFIX_WEIGHT = 0.375;
const MIN_PREFIX_LENGTH = 5;

/** Search scratch, reused between searches. */
export interface Scratch {
  scores: Float64Array;
  matched: Int32Array;
  touched: Int32Array;
  touchedCount: number;
  marks: Int32Array;
}

export function emptyScratch(): Scratch {
  return {
    scores: new Float64Array(0),
    matched: new Int32Array(0),
    touched: new Int32Array(0),
    touchedCount: 0,
    marks: new Int32Array(0),
  };
}

type Scored = { slot: number; score: number };

/** Adds one matched term's BM25+ contributions (weight `w`) to the scores of the chunks it is in. */
function scoreTerm(
  st: IndexState,
  sc: Scratch,
  p: Postings,
  w: number,
  avgText: number,
  avgTitle: number,
  mark: number,
): void {
  const { ids, lenText, lenTitle, live } = st;
  const { scores, matched, touched, marks } = sc;
  // Document frequencies per field among live chunks (dead postings stay until compaction).
  let nText = 0;
  let nTitle = 0;
  for (let i = 0; i < p.n; i++) {
    if (ids[p.slots[i]!] === null) continue;
    if (p.tf[2 * i]! > 0) nText++;
    if (p.tf[2 * i + 1]! > 0) nTitle++;
  }
  const idfText = Math.log(1 + (live - nText + 0.5) / (nText + 0.5));
  const idfTitle = Math.log(1 + (live - nTitle + 0.5) / (nTitle + 0.5));
  for (let i = 0; i < p.n; i++) {
    const s = p.slots[i]!;
    if (ids[s] === null) continue;
    let score = 0;
    const ft = p.tf[2 * i]!;
    if (ft > 0) score += idfText * (D + (ft * (K1 + 1)) / (ft + K1 * (1 - B + (B * lenText[s]!) / avgText)));
    const fl = p.tf[2 * i + 1]!;
    if (fl > 0)
      score += TITLE_BOOST * idfTitle * (D + (fl * (K1 + 1)) / (fl + K1 * (1 - B + (B * lenTitle[s]!) / avgTitle)));
    if (scores[s] === 0 && matched[s] === 0) touched[sc.touchedCount++] = s;
    scores[s]! += w * score;
    // `matched` counts the query terms a chunk matched: `mark` is the term's number, stored + 1 per term once.
    if ((marks[s] ?? -1) !== mark) {
      marks[s] = mark;
      matched[s]!++;
    }
  }
}

/** The `topK` best chunks; with `queryVector` (and chunks with vectors), BM25 normalised to 0–1 blended with cosine. */
export function search(
  st: IndexState,
  sc: Scratch,
  query: string,
  topK: number,
  queryVector?: number[] | null,
): LexicalHit[] {
  const n = st.ids.length;
  if (sc.scores.length < n) {
    sc.scores = new Float64Array(n * 2);
    sc.matched = new Int32Array(n * 2);
    sc.touched = new Int32Array(n * 2);
    sc.marks = new Int32Array(n * 2).fill(-1);
  }
  sc.touchedCount = 0;
  const avgText = st.live > 0 ? Math.max(st.totalText / st.live, 1e-9) : 1;
  const avgTitle = st.live > 0 ? Math.max(st.totalTitle / st.live, 1e-9) : 1;
  const { termIndex, postings, sorted } = st;
  queryTerms(query).forEach((term, q) => {
    const exact = termIndex.get(term);
    if (exact !== undefined) scoreTerm(st, sc, postings[exact]!, 1, avgText, avgTitle, q);
    if (term.length < MIN_PREFIX_LENGTH) return;
    for (let i = lowerBound(sorted, term); i < sorted.length && sorted[i]!.startsWith(term); i++) {
      const t = sorted[i]!;
      if (t === term) continue;
      const w = (PREFIX_WEIGHT * t.length) / (t.length + 0.3 * (t.length - term.length));
      scoreTerm(st, sc, postings[termIndex.get(t)!]!, w, avgText, avgTitle, q);
    }
  });
  const found = collect(sc);
  const q = queryVector && st.vectors > 0 ? unit(queryVector) : null;
  const ranked = q ? topOf(st.ids, blend(st, found, q), topK) : topOf(st.ids, found, topK);
  const { ids, pages, titles, pageOf, ordinals } = st;
  return ranked.map(({ slot, score }) => ({
    id: ids[slot]!,
    url: pages[pageOf[slot]!]!,
    title: titles[pageOf[slot]!]!,
    ordinal: ordinals[slot]!,
    score,
  }));
}

/** The chunks the terms touched with their BM25 scores (times the terms matched); the scratch left clean. */
function collect(sc: Scratch): Scored[] {
  const { scores, matched, touched, marks } = sc;
  const found: Scored[] = [];
  for (let i = 0; i < sc.touchedCount; i++) {
    const s = touched[i]!;
    found.push({ slot: s, score: scores[s]! * matched[s]! });
    scores[s] = 0;
    matched[s] = 0;
    marks[s] = -1;
  }
  return found;
}

/** BM25 normalised to 0–1 (weight BM25_WEIGHT) plus the cosine similarity to `q`; only chunks scoring above 0. */
function blend(st: IndexState, found: Scored[], q: Float32Array): Scored[] {
  const { vectorOf } = st;
  const top = found.reduce((m, f) => Math.max(m, f.score), 0);
  const blended = new Map<number, number>();
  for (const f of found) blended.set(f.slot, top > 0 ? (BM25_WEIGHT * f.score) / top : 0);
  for (let s = 0; s < vectorOf.length; s++) {
    const v = vectorOf[s];
    if (!v || v.length !== q.length) continue; // another embedding model: BM25 alone for that chunk
    blended.set(s, (blended.get(s) ?? 0) + (1 - BM25_WEIGHT) * Math.max(0, dot(v, q)));
  }
  return [...blended].filter(([, sc]) => sc > 0).map(([slot, score]) => ({ slot, score }));
}

/** The `k` best by score, ties broken by chunk id (so that every replica ranks alike). */
function topOf(ids: (string | null)[], items: Scored[], k: number): Scored[] {
  const better = (a: Scored, b: Scored) => a.score > b.score || (a.score === b.score && ids[a.slot]! < ids[b.slot]!);
  const best: Scored[] = [];
  for (const it of items) {
    if (best.length === k && !better(it, best[k - 1]!)) continue;
    let i = best.length === k ? k - 1 : best.length;
    if (best.length < k) best.push(it);
    while (i > 0 && better(it, best[i - 1]!)) {
      best[i] = best[i - 1]!;
      i--;
    }
    best[i] = it;
  }
  return best;
}
