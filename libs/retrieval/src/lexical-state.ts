/** A chunk as the index takes it in. */
export interface IndexedChunk {
  id: string;
  url: string;
  title: string;
  ordinal: number;
  text: string;
  embedding: number[] | null;
}

/** A term's postings: chunk slots in increasing order, with the term's count in text and in title per slot. */
export interface Postings {
  slots: Int32Array;
  /** tf[2i] in text, tf[2i + 1] in title. */
  tf: Uint8Array;
  n: number;
}

/**
 * What one index holds, as flat arrays: its upkeep (lexical-upkeep.ts), its scoring (lexical-scoring.ts) and its
 * binary form (lexical-format.ts) read and change it in place.
 */
export interface IndexState {
  // Slots: one per chunk ever added since the last compaction; a removed chunk's slot is dead until then.
  ids: (string | null)[];
  pageOf: Int32Array;
  ordinals: Int32Array;
  lenText: Int32Array;
  lenTitle: Int32Array;
  vectorOf: (Float32Array | null)[];
  readonly slotOf: Map<string, number>;
  // Pages: url and title; a page's slots, to remove them together.
  pages: string[];
  titles: string[];
  pageIndex: Map<string, number>;
  pageSlots: Set<number>[];
  // Terms.
  terms: string[];
  termIndex: Map<string, number>;
  postings: Postings[];
  /** Term ids in the order of their terms (for prefix matching). */
  sorted: string[];
  live: number;
  dead: number;
  vectors: number;
  totalText: number;
  totalTitle: number;
}

/** An index with nothing in it. */
export function emptyState(): IndexState {
  return {
    ids: [],
    pageOf: new Int32Array(0),
    ordinals: new Int32Array(0),
    lenText: new Int32Array(0),
    lenTitle: new Int32Array(0),
    vectorOf: [],
    slotOf: new Map(),
    pages: [],
    titles: [],
    pageIndex: new Map(),
    pageSlots: [],
    terms: [],
    termIndex: new Map(),
    postings: [],
    sorted: [],
    live: 0,
    dead: 0,
    vectors: 0,
    totalText: 0,
    totalTitle: 0,
  };
}
