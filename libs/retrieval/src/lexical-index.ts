import { gunzipSync } from 'node:zlib';

import { readInto, serialize } from './lexical-format';
import { emptyScratch, search, type LexicalHit } from './lexical-scoring';
import { emptyState, type IndexedChunk } from './lexical-state';
import { addChunk, clear, removeChunk, removeUrl } from './lexical-upkeep';

export { BM25_WEIGHT, type LexicalHit } from './lexical-scoring';
export type { IndexedChunk } from './lexical-state';
export { queryTerms } from './lexical-terms';

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
 *
 * The index is one state of flat arrays (lexical-state.ts) that three modules work on: its upkeep (lexical-upkeep.ts:
 * adding, removing, compaction), its scoring (lexical-scoring.ts: BM25+, prefixes, vector blending, the top k) and
 * its binary form (lexical-format.ts); lexical-terms.ts cuts fields and queries into terms.
 */

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
  const st = emptyState();
  const scratch = emptyScratch();
  if (raw) readInto(st, raw);
  return {
    get size() {
      return st.live;
    },
    get vectors() {
      return st.vectors;
    },
    add: (chunk) => addChunk(st, chunk),
    remove: (id) => removeChunk(st, id),
    removeUrl: (url) => removeUrl(st, url),
    clear: () => clear(st),
    has: (id) => st.slotOf.has(id),
    search: (query, topK, queryVector) => search(st, scratch, query, topK, queryVector),
    serialize: () => serialize(st),
  };
}
