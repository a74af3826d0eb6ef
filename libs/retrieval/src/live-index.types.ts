import type { IndexedChunk } from './lexical-index';

/** One change of a rag id's chunks: pages removed (their chunks), chunks added; `reset` removes everything first. */
export interface IndexChange {
  seq: number;
  reset?: boolean;
  removeUrls: string[];
  add: IndexedChunk[];
}

/** Where a snapshot is and which sequence it covers. */
export interface SnapshotRef {
  id: string;
  seq: number;
  parts: number;
}

/** The rag id's state: the last sequence number written, and its newest snapshot. */
export interface IndexHead {
  seq: number;
  snapshot: SnapshotRef | null;
}

/** What the live indexes need from the service's storage. */
export interface LiveIndexStore {
  head(ragId: string): Promise<IndexHead>;
  /** The changes of these sequence numbers (null for one no longer kept). */
  changes(ragId: string, seqs: number[]): Promise<(IndexChange | null)[]>;
  /** A snapshot's bytes, or null when it is gone (a newer one replaced it). */
  readSnapshot(ragId: string, ref: SnapshotRef): Promise<Buffer | null>;
  /** Stores a snapshot covering `seq` and makes it the newest (unless a newer one already is). */
  writeSnapshot(ragId: string, seq: number, data: Buffer): Promise<void>;
  /** Every chunk of the rag id (the one-time build of a rag id that predates the change log). */
  allChunks(ragId: string): Promise<IndexedChunk[]>;
  /** The text of chunks, by id (results carry it; the index does not keep it). */
  texts(ragId: string, ids: string[]): Promise<Map<string, string>>;
}

export interface LiveIndexesDeps {
  store: LiveIndexStore;
  /** Rag ids whose index is kept in memory at once (least recently used dropped first). */
  maxIndexes: number;
  /** A snapshot is written once this many changes were applied since the last one (and when `persist` is asked). */
  snapshotEvery?: number;
  /** Catch-ups longer than this many changes load the newest snapshot instead. */
  maxCatchUp?: number;
  /** Chunk texts kept in memory (most recently returned). */
  textCacheSize?: number;
  onError?: (err: Error, ragId: string) => void;
  /** Counts what the indexes did (tests and metrics). */
  stats?: LiveIndexStats;
  /** `persistSoon` writes the snapshot this long after the first change it was told of (default 10 s). */
  persistDelayMs?: number;
}

export interface LiveIndexStats {
  builds: number;
  snapshotLoads: number;
  snapshotWrites: number;
  changesApplied: number;
}

/** A chunk found by a search, with its text. */
export interface LiveHit {
  id: string;
  url: string;
  title: string;
  ordinal: number;
  text: string;
  score: number;
}
