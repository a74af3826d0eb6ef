import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * An incremental BM25+ index of one rag id's chunks, built for what a replica needs: chunks added and removed one
 * page at a time (no rebuild), a compact binary form that a new replica loads in a fraction of a second, and
 * searches that read flat typed arrays (no per-posting objects for the collector to walk).
 *
 * Scoring is minisearch's (the index this replaces): BM25+ (k 1.2, b 0.7, d 0.5) per field, fields `text` and
 * `title` (title boosted 1.5), query terms of five letters or more also matching longer terms they begin (weight
 * 0.375 · len / (len + 0.3 · extra letters)), summed over terms, times the number of query terms matched.
 * Function words are neither indexed nor searched. The index keeps where a chunk is (url, title, ordinal), not its
 * text: results name chunks, whose text the caller reads from where it stores them.
 */

/** A chunk as the index takes it in. */
export interface IndexedChunk {
  id: string;
  url: string;
  title: string;
  ordinal: number;
  text: string;
  embedding: number[] | null;
}

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
/** A term's frequency in one field is counted up to this (one byte per field per posting). */
const MAX_TF = 255;
/** Compaction (postings of removed chunks dropped, slots renumbered) once this share of slots is dead. */
const COMPACT_DEAD_SHARE = 0.25;
const COMPACT_MIN_DEAD = 1_000;
const FORMAT = 1;

/**
 * English function words: they match nearly every chunk, add nothing to BM25's ranking, and would make a query
 * such as "where is the ..." score every chunk.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can did do does for from had has have he her his how i if in into is it its me my no not of on or our ' +
    'she so than that the their them then there these they this to up us was we were what when where which who why will with you your'
  ).split(' '),
);

const SPLIT = /[\n\r\p{Z}\p{P}]+/u;

/** The raw tokens of a field (minisearch's tokenizer: spaces and punctuation separate). */
const tokensOf = (s: string): string[] => s.split(SPLIT).filter((t) => t.length > 0);
const termOf = (token: string): string | null => {
  const t = token.toLowerCase();
  return STOP_WORDS.has(t) ? null : t;
};

/** The distinct search terms of a query, in order. */
export function queryTerms(query: string): string[] {
  const out: string[] = [];
  for (const tok of tokensOf(query)) {
    const t = termOf(tok);
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** Term counts of one field, and its length as minisearch counts it (distinct raw tokens). */
function countTerms(text: string): { counts: Map<string, number>; length: number } {
  const tokens = tokensOf(text);
  const counts = new Map<string, number>();
  for (const tok of tokens) {
    const t = termOf(tok);
    if (t) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return { counts, length: new Set(tokens).size };
}

/** A unit-length float32 copy; null for a zero vector. */
function unit(v: ArrayLike<number>): Float32Array | null {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  if (norm === 0) return null;
  const k = 1 / Math.sqrt(norm);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * k;
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** A term's postings: chunk slots in increasing order, with the term's count in text and in title per slot. */
interface Postings {
  slots: Int32Array;
  /** tf[2i] in text, tf[2i + 1] in title. */
  tf: Uint8Array;
  n: number;
}

function grow<T extends Int32Array | Uint8Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2, 4));
  next.set(a);
  return next;
}

function lowerBound(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What the binary form holds besides the postings. */
interface Header {
  format: number;
  ids: string[];
  pages: string[];
  titles: string[];
  terms: string[];
  termOrder: number[];
}

export interface LexicalIndex {
  /** Chunks in the index. */
  readonly size: number;
  /** Chunks with an embedding. */
  readonly vectors: number;
  /** Adds a chunk (replacing one of the same id). */
  add(chunk: IndexedChunk): void;
  /** Removes a chunk; false when it was not there. */
  remove(id: string): boolean;
  /** Removes every chunk of a page; how many. */
  removeUrl(url: string): number;
  /** Everything out. */
  clear(): void;
  has(id: string): boolean;
  /** The `topK` best chunks; with `queryVector` (and chunks with vectors), BM25 normalised to 0–1 blended with cosine. */
  search(query: string, topK: number, queryVector?: number[] | null): LexicalHit[];
  /** The binary form (gzip), which `loadLexicalIndex` reads back. Compacts first. */
  serialize(): Buffer;
}

/** An empty index. */
export function createLexicalIndex(): LexicalIndex {
  return makeIndex();
}

/** Reads the form `serialize` wrote. Throws on anything else. */
export function loadLexicalIndex(data: Buffer): LexicalIndex {
  return makeIndex(gunzipSync(data));
}

function makeIndex(raw?: Buffer): LexicalIndex {
  // Slots: one per chunk ever added since the last compaction; a removed chunk's slot is dead until then.
  let ids: (string | null)[] = [];
  let pageOf = new Int32Array(0);
  let ordinals = new Int32Array(0);
  let lenText = new Int32Array(0);
  let lenTitle = new Int32Array(0);
  let vectorOf: (Float32Array | null)[] = [];
  const slotOf = new Map<string, number>();
  // Pages: url and title; a page's slots, to remove them together.
  let pages: string[] = [];
  let titles: string[] = [];
  let pageIndex = new Map<string, number>();
  let pageSlots: Set<number>[] = [];
  // Terms.
  let terms: string[] = [];
  let termIndex = new Map<string, number>();
  let postings: Postings[] = [];
  /** Term ids in the order of their terms (for prefix matching). */
  let sorted: string[] = [];
  let live = 0;
  let dead = 0;
  let vectors = 0;
  let totalText = 0;
  let totalTitle = 0;
  // Search scratch, reused between searches.
  let scores = new Float64Array(0);
  let matched = new Int32Array(0);
  let touched = new Int32Array(0);

  const pageOfUrl = (url: string, title: string): number => {
    let p = pageIndex.get(url);
    if (p === undefined) {
      p = pages.length;
      pages.push(url);
      titles.push(title);
      pageSlots.push(new Set());
      pageIndex.set(url, p);
    } else titles[p] = title;
    return p;
  };

  const termId = (t: string): number => {
    let id = termIndex.get(t);
    if (id === undefined) {
      id = terms.length;
      terms.push(t);
      termIndex.set(t, id);
      postings.push({ slots: new Int32Array(2), tf: new Uint8Array(4), n: 0 });
      sorted.splice(lowerBound(sorted, t), 0, t);
    }
    return id;
  };

  function remove(id: string): boolean {
    const slot = slotOf.get(id);
    if (slot === undefined) return false;
    slotOf.delete(id);
    ids[slot] = null;
    pageSlots[pageOf[slot]!]!.delete(slot);
    totalText -= lenText[slot]!;
    totalTitle -= lenTitle[slot]!;
    if (vectorOf[slot]) vectors--;
    vectorOf[slot] = null;
    live--;
    dead++;
    if (dead >= COMPACT_MIN_DEAD && dead > COMPACT_DEAD_SHARE * ids.length) compact();
    return true;
  }

  function add(chunk: IndexedChunk): void {
    remove(chunk.id);
    const slot = ids.length;
    ids.push(chunk.id);
    slotOf.set(chunk.id, slot);
    const page = pageOfUrl(chunk.url, chunk.title);
    pageSlots[page]!.add(slot);
    pageOf = grow(pageOf, slot + 1);
    ordinals = grow(ordinals, slot + 1);
    lenText = grow(lenText, slot + 1);
    lenTitle = grow(lenTitle, slot + 1);
    pageOf[slot] = page;
    ordinals[slot] = chunk.ordinal;
    const text = countTerms(chunk.text);
    const title = countTerms(chunk.title);
    lenText[slot] = text.length;
    lenTitle[slot] = title.length;
    totalText += text.length;
    totalTitle += title.length;
    const v = chunk.embedding && chunk.embedding.length > 0 ? unit(chunk.embedding) : null;
    vectorOf.push(v);
    if (v) vectors++;
    live++;
    const all = new Set([...text.counts.keys(), ...title.counts.keys()]);
    for (const t of all) {
      const p = postings[termId(t)]!;
      p.slots = grow(p.slots, p.n + 1);
      p.tf = grow(p.tf, 2 * p.n + 2);
      p.slots[p.n] = slot;
      p.tf[2 * p.n] = Math.min(MAX_TF, text.counts.get(t) ?? 0);
      p.tf[2 * p.n + 1] = Math.min(MAX_TF, title.counts.get(t) ?? 0);
      p.n++;
    }
  }

  /** Drops dead slots from every posting list and renumbers the live ones (order kept). */
  function compact(): void {
    if (dead === 0) return;
    const remap = new Int32Array(ids.length).fill(-1);
    let next = 0;
    for (let s = 0; s < ids.length; s++) if (ids[s] !== null) remap[s] = next++;
    const keep = (s: number) => remap[s]! >= 0;
    const nextIds: string[] = [];
    const nextVectors: (Float32Array | null)[] = [];
    const nPageOf = new Int32Array(next);
    const nOrd = new Int32Array(next);
    const nText = new Int32Array(next);
    const nTitle = new Int32Array(next);
    for (let s = 0; s < ids.length; s++) {
      if (!keep(s)) continue;
      const r = remap[s]!;
      nextIds.push(ids[s]!);
      nextVectors.push(vectorOf[s] ?? null);
      nPageOf[r] = pageOf[s]!;
      nOrd[r] = ordinals[s]!;
      nText[r] = lenText[s]!;
      nTitle[r] = lenTitle[s]!;
    }
    for (const p of postings) {
      let w = 0;
      for (let i = 0; i < p.n; i++) {
        const s = p.slots[i]!;
        if (!keep(s)) continue;
        p.slots[w] = remap[s]!;
        p.tf[2 * w] = p.tf[2 * i]!;
        p.tf[2 * w + 1] = p.tf[2 * i + 1]!;
        w++;
      }
      p.n = w;
    }
    ids = nextIds;
    vectorOf = nextVectors;
    pageOf = nPageOf;
    ordinals = nOrd;
    lenText = nText;
    lenTitle = nTitle;
    slotOf.clear();
    ids.forEach((id, s) => slotOf.set(id!, s));
    // Pages and terms that nothing uses any more go too.
    const usedPages = new Int32Array(pages.length).fill(-1);
    const nPages: string[] = [];
    const nTitles: string[] = [];
    for (let s = 0; s < ids.length; s++) {
      const p = pageOf[s]!;
      if (usedPages[p] === -1) {
        usedPages[p] = nPages.length;
        nPages.push(pages[p]!);
        nTitles.push(titles[p]!);
      }
      pageOf[s] = usedPages[p]!;
    }
    pages = nPages;
    titles = nTitles;
    pageIndex = new Map(pages.map((u, i) => [u, i]));
    pageSlots = pages.map(() => new Set<number>());
    for (let s = 0; s < ids.length; s++) pageSlots[pageOf[s]!]!.add(s);
    const nTerms: string[] = [];
    const nPostings: Postings[] = [];
    for (let t = 0; t < terms.length; t++) {
      if (postings[t]!.n === 0) continue;
      nTerms.push(terms[t]!);
      nPostings.push(postings[t]!);
    }
    terms = nTerms;
    postings = nPostings;
    termIndex = new Map(terms.map((t, i) => [t, i]));
    sorted = [...terms].sort();
    dead = 0;
  }

  function clear(): void {
    ids = [];
    vectorOf = [];
    pageOf = new Int32Array(0);
    ordinals = new Int32Array(0);
    lenText = new Int32Array(0);
    lenTitle = new Int32Array(0);
    slotOf.clear();
    pages = [];
    titles = [];
    pageIndex = new Map();
    pageSlots = [];
    terms = [];
    termIndex = new Map();
    postings = [];
    sorted = [];
    live = dead = vectors = totalText = totalTitle = 0;
  }

  /** Adds one matched term's BM25+ contributions (weight `w`) to the scores of the chunks it is in. */
  function scoreTerm(p: Postings, w: number, avgText: number, avgTitle: number, mark: number): void {
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
      if (scores[s] === 0 && matched[s] === 0) touched[touchedCount++] = s;
      scores[s]! += w * score;
      // `matched` counts the query terms a chunk matched: `mark` is the term's number, stored + 1 per term once.
      if ((marks[s] ?? -1) !== mark) {
        marks[s] = mark;
        matched[s]!++;
      }
    }
  }
  let touchedCount = 0;
  let marks = new Int32Array(0);

  function search(query: string, topK: number, queryVector?: number[] | null): LexicalHit[] {
    const n = ids.length;
    if (scores.length < n) {
      scores = new Float64Array(n * 2);
      matched = new Int32Array(n * 2);
      touched = new Int32Array(n * 2);
      marks = new Int32Array(n * 2).fill(-1);
    }
    touchedCount = 0;
    const avgText = live > 0 ? Math.max(totalText / live, 1e-9) : 1;
    const avgTitle = live > 0 ? Math.max(totalTitle / live, 1e-9) : 1;
    queryTerms(query).forEach((term, q) => {
      const exact = termIndex.get(term);
      if (exact !== undefined) scoreTerm(postings[exact]!, 1, avgText, avgTitle, q);
      if (term.length < MIN_PREFIX_LENGTH) return;
      for (let i = lowerBound(sorted, term); i < sorted.length && sorted[i]!.startsWith(term); i++) {
        const t = sorted[i]!;
        if (t === term) continue;
        const w = (PREFIX_WEIGHT * t.length) / (t.length + 0.3 * (t.length - term.length));
        scoreTerm(postings[termIndex.get(t)!]!, w, avgText, avgTitle, q);
      }
    });
    const found: { slot: number; score: number }[] = [];
    for (let i = 0; i < touchedCount; i++) {
      const s = touched[i]!;
      found.push({ slot: s, score: scores[s]! * matched[s]! });
      scores[s] = 0;
      matched[s] = 0;
      marks[s] = -1;
    }
    const q = queryVector && vectors > 0 ? unit(queryVector) : null;
    let ranked: { slot: number; score: number }[];
    if (!q) ranked = topOf(found, topK);
    else {
      const top = found.reduce((m, f) => Math.max(m, f.score), 0);
      const blended = new Map<number, number>();
      for (const f of found) blended.set(f.slot, top > 0 ? (BM25_WEIGHT * f.score) / top : 0);
      for (let s = 0; s < vectorOf.length; s++) {
        const v = vectorOf[s];
        if (!v || v.length !== q.length) continue; // another embedding model: BM25 alone for that chunk
        blended.set(s, (blended.get(s) ?? 0) + (1 - BM25_WEIGHT) * Math.max(0, dot(v, q)));
      }
      ranked = topOf(
        [...blended].filter(([, sc]) => sc > 0).map(([slot, score]) => ({ slot, score })),
        topK,
      );
    }
    return ranked.map(({ slot, score }) => ({
      id: ids[slot]!,
      url: pages[pageOf[slot]!]!,
      title: titles[pageOf[slot]!]!,
      ordinal: ordinals[slot]!,
      score,
    }));
  }

  /** The `k` best by score, ties broken by chunk id (so that every replica ranks alike). */
  function topOf(items: { slot: number; score: number }[], k: number): { slot: number; score: number }[] {
    const better = (a: { slot: number; score: number }, b: { slot: number; score: number }) =>
      a.score > b.score || (a.score === b.score && ids[a.slot]! < ids[b.slot]!);
    const best: { slot: number; score: number }[] = [];
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

  function serialize(): Buffer {
    compact();
    const termOrder = sorted.map((t) => termIndex.get(t)!);
    const header: Header = { format: FORMAT, ids: ids as string[], pages, titles, terms, termOrder };
    const headerBytes = Buffer.from(JSON.stringify(header));
    const count = ids.length;
    // Postings: per term its count, then slot gaps as varints, then its tf pairs.
    let total = 0;
    for (const p of postings) total += p.n;
    const gaps = Buffer.alloc(total * 5 + postings.length * 5);
    let g = 0;
    const varint = (x: number) => {
      while (x >= 0x80) {
        gaps[g++] = (x & 0x7f) | 0x80;
        x >>>= 7;
      }
      gaps[g++] = x;
    };
    const tfs = new Uint8Array(total * 2);
    let f = 0;
    for (const p of postings) {
      varint(p.n);
      let prev = 0;
      for (let i = 0; i < p.n; i++) {
        varint(p.slots[i]! - prev);
        prev = p.slots[i]!;
      }
      tfs.set(p.tf.subarray(0, 2 * p.n), f);
      f += 2 * p.n;
    }
    const dims = new Int32Array(count);
    let vecTotal = 0;
    for (let s = 0; s < count; s++) {
      dims[s] = vectorOf[s]?.length ?? 0;
      vecTotal += dims[s]!;
    }
    const vecs = new Float32Array(vecTotal);
    let o = 0;
    for (let s = 0; s < count; s++) {
      const v = vectorOf[s];
      if (v) vecs.set(v, o);
      o += dims[s]!;
    }
    const sections = [
      headerBytes,
      Buffer.from(pageOf.buffer, pageOf.byteOffset, count * 4),
      Buffer.from(ordinals.buffer, ordinals.byteOffset, count * 4),
      Buffer.from(lenText.buffer, lenText.byteOffset, count * 4),
      Buffer.from(lenTitle.buffer, lenTitle.byteOffset, count * 4),
      gaps.subarray(0, g),
      Buffer.from(tfs.buffer, tfs.byteOffset, tfs.length),
      Buffer.from(dims.buffer, dims.byteOffset, dims.byteLength),
      Buffer.from(vecs.buffer, vecs.byteOffset, vecs.byteLength),
    ];
    const lengths = Buffer.alloc(4 * sections.length);
    sections.forEach((s, i) => lengths.writeUInt32LE(s.length, 4 * i));
    return gzipSync(Buffer.concat([Buffer.from([sections.length]), lengths, ...sections]), { level: 1 });
  }

  if (raw) {
    const nSections = raw[0]!;
    const sections: Buffer[] = [];
    let at = 1 + 4 * nSections;
    for (let i = 0; i < nSections; i++) {
      const len = raw.readUInt32LE(1 + 4 * i);
      sections.push(raw.subarray(at, at + len));
      at += len;
    }
    const header = JSON.parse(sections[0]!.toString('utf8')) as Header;
    if (header.format !== FORMAT) throw new Error(`unknown index format ${String(header.format)}`);
    const int32 = (b: Buffer) => {
      const copy = new Int32Array(b.length / 4);
      new Uint8Array(copy.buffer).set(b);
      return copy;
    };
    ids = header.ids;
    const count = ids.length;
    pageOf = int32(sections[1]!);
    ordinals = int32(sections[2]!);
    lenText = int32(sections[3]!);
    lenTitle = int32(sections[4]!);
    pages = header.pages;
    titles = header.titles;
    pageIndex = new Map(pages.map((u, i) => [u, i]));
    pageSlots = pages.map(() => new Set<number>());
    for (let s = 0; s < count; s++) {
      slotOf.set(ids[s]!, s);
      pageSlots[pageOf[s]!]!.add(s);
      totalText += lenText[s]!;
      totalTitle += lenTitle[s]!;
    }
    live = count;
    terms = header.terms;
    termIndex = new Map(terms.map((t, i) => [t, i]));
    sorted = header.termOrder.map((i) => terms[i]!);
    const gaps = sections[5]!;
    const tfs = new Uint8Array(sections[6]!);
    let g = 0;
    const readVarint = () => {
      let x = 0;
      let shift = 0;
      for (;;) {
        const b = gaps[g++]!;
        x += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) return x;
        shift += 7;
      }
    };
    let f = 0;
    postings = terms.map(() => {
      const n = readVarint();
      const slots = new Int32Array(n);
      let prev = 0;
      for (let i = 0; i < n; i++) slots[i] = prev += readVarint();
      const tf = tfs.slice(f, f + 2 * n);
      f += 2 * n;
      return { slots, tf, n };
    });
    const dims = int32(sections[7]!);
    const vecBytes = sections[8]!;
    const all = new Float32Array(vecBytes.length / 4);
    new Uint8Array(all.buffer).set(vecBytes);
    let o = 0;
    vectorOf = Array.from(dims, (d) => {
      if (d === 0) return null;
      const v = all.subarray(o, o + d);
      o += d;
      vectors++;
      return v;
    });
  }

  return {
    get size() {
      return live;
    },
    get vectors() {
      return vectors;
    },
    add,
    remove,
    removeUrl(url) {
      const p = pageIndex.get(url);
      if (p === undefined) return 0;
      // Ids first: a removal may compact, which renumbers slots.
      const victims = [...pageSlots[p]!].map((s) => ids[s]!);
      for (const id of victims) remove(id);
      return victims.length;
    },
    clear,
    has: (id) => slotOf.has(id),
    search,
    serialize,
  };
}
