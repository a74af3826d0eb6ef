import { grow, lowerBound, unit } from './lexical-arrays';
import type { IndexedChunk, IndexState, Postings } from './lexical-state';
import { countTerms } from './lexical-terms';

/** A term's frequency in one field is counted up to this (one byte per field per posting). */
const MAX_TF = 255;
/** Compaction (postings of removed chunks dropped, slots renumbered) once this share of slots is dead. */
const COMPACT_DEAD_SHARE = 0.25;
const COMPACT_MIN_DEAD = 1_000;

function pageOfUrl(st: IndexState, url: string, title: string): number {
  let p = st.pageIndex.get(url);
  if (p === undefined) {
    p = st.pages.length;
    st.pages.push(url);
    st.titles.push(title);
    st.pageSlots.push(new Set());
    st.pageIndex.set(url, p);
  } else st.titles[p] = title;
  return p;
}

function termId(st: IndexState, t: string): number {
  let id = st.termIndex.get(t);
  if (id === undefined) {
    id = st.terms.length;
    st.terms.push(t);
    st.termIndex.set(t, id);
    st.postings.push({ slots: new Int32Array(2), tf: new Uint8Array(4), n: 0 });
    st.sorted.splice(lowerBound(st.sorted, t), 0, t);
  }
  return id;
}

/** Removes a chunk; false when it was not there. */
export function removeChunk(st: IndexState, id: string): boolean {
  const slot = st.slotOf.get(id);
  if (slot === undefined) return false;
  st.slotOf.delete(id);
  st.ids[slot] = null;
  st.pageSlots[st.pageOf[slot]!]!.delete(slot);
  st.totalText -= st.lenText[slot]!;
  st.totalTitle -= st.lenTitle[slot]!;
  if (st.vectorOf[slot]) st.vectors--;
  st.vectorOf[slot] = null;
  st.live--;
  st.dead++;
  if (st.dead >= COMPACT_MIN_DEAD && st.dead > COMPACT_DEAD_SHARE * st.ids.length) compact(st);
  return true;
}

/** Adds a chunk (replacing one of the same id). */
export function addChunk(st: IndexState, chunk: IndexedChunk): void {
  removeChunk(st, chunk.id);
  const slot = st.ids.length;
  st.ids.push(chunk.id);
  st.slotOf.set(chunk.id, slot);
  const page = pageOfUrl(st, chunk.url, chunk.title);
  st.pageSlots[page]!.add(slot);
  st.pageOf = grow(st.pageOf, slot + 1);
  st.ordinals = grow(st.ordinals, slot + 1);
  st.lenText = grow(st.lenText, slot + 1);
  st.lenTitle = grow(st.lenTitle, slot + 1);
  st.pageOf[slot] = page;
  st.ordinals[slot] = chunk.ordinal;
  const text = countTerms(chunk.text);
  const title = countTerms(chunk.title);
  st.lenText[slot] = text.length;
  st.lenTitle[slot] = title.length;
  st.totalText += text.length;
  st.totalTitle += title.length;
  const v = chunk.embedding && chunk.embedding.length > 0 ? unit(chunk.embedding) : null;
  st.vectorOf.push(v);
  if (v) st.vectors++;
  st.live++;
  const all = new Set([...text.counts.keys(), ...title.counts.keys()]);
  for (const t of all) {
    const p = st.postings[termId(st, t)]!;
    p.slots = grow(p.slots, p.n + 1);
    p.tf = grow(p.tf, 2 * p.n + 2);
    p.slots[p.n] = slot;
    p.tf[2 * p.n] = Math.min(MAX_TF, text.counts.get(t) ?? 0);
    p.tf[2 * p.n + 1] = Math.min(MAX_TF, title.counts.get(t) ?? 0);
    p.n++;
  }
}

/** Removes every chunk of a page; how many. */
export function removeUrl(st: IndexState, url: string): number {
  const p = st.pageIndex.get(url);
  if (p === undefined) return 0;
  // Ids first: a removal may compact, which renumbers slots.
  const victims = [...st.pageSlots[p]!].map((s) => st.ids[s]!);
  for (const id of victims) removeChunk(st, id);
  return victims.length;
}

/** Everything out. */
export function clear(st: IndexState): void {
  st.ids = [];
  st.vectorOf = [];
  st.pageOf = new Int32Array(0);
  st.ordinals = new Int32Array(0);
  st.lenText = new Int32Array(0);
  st.lenTitle = new Int32Array(0);
  st.slotOf.clear();
  st.pages = [];
  st.titles = [];
  st.pageIndex = new Map();
  st.pageSlots = [];
  st.terms = [];
  st.termIndex = new Map();
  st.postings = [];
  st.sorted = [];
  st.live = st.dead = st.vectors = st.totalText = st.totalTitle = 0;
}

/** Drops dead slots from every posting list and renumbers the live ones (order kept). */
export function compact(st: IndexState): void {
  if (st.dead === 0) return;
  dropDeadSlots(st);
  // Pages and terms that nothing uses any more go too.
  dropUnusedPages(st);
  dropUnusedTerms(st);
  st.dead = 0;
}

function dropDeadSlots(st: IndexState): void {
  const { ids } = st;
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
    nextVectors.push(st.vectorOf[s] ?? null);
    nPageOf[r] = st.pageOf[s]!;
    nOrd[r] = st.ordinals[s]!;
    nText[r] = st.lenText[s]!;
    nTitle[r] = st.lenTitle[s]!;
  }
  for (const p of st.postings) renumber(p, remap, keep);
  st.ids = nextIds;
  st.vectorOf = nextVectors;
  st.pageOf = nPageOf;
  st.ordinals = nOrd;
  st.lenText = nText;
  st.lenTitle = nTitle;
  st.slotOf.clear();
  st.ids.forEach((id, s) => st.slotOf.set(id!, s));
}

/** One posting list without its dead slots, the live ones renumbered. */
function renumber(p: Postings, remap: Int32Array, keep: (s: number) => boolean): void {
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

function dropUnusedPages(st: IndexState): void {
  const { ids, pageOf, pages, titles } = st;
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
  st.pages = nPages;
  st.titles = nTitles;
  indexPages(st);
  for (let s = 0; s < ids.length; s++) st.pageSlots[pageOf[s]!]!.add(s);
}

/** The page lookups of `st.pages`, each page's slot set empty. */
export function indexPages(st: IndexState): void {
  st.pageIndex = new Map(st.pages.map((u, i) => [u, i]));
  st.pageSlots = st.pages.map(() => new Set<number>());
}

function dropUnusedTerms(st: IndexState): void {
  const { terms, postings } = st;
  const nTerms: string[] = [];
  const nPostings: Postings[] = [];
  for (let t = 0; t < terms.length; t++) {
    if (postings[t]!.n === 0) continue;
    nTerms.push(terms[t]!);
    nPostings.push(postings[t]!);
  }
  st.terms = nTerms;
  st.postings = nPostings;
  st.termIndex = new Map(st.terms.map((t, i) => [t, i]));
  st.sorted = [...st.terms].sort();
}
