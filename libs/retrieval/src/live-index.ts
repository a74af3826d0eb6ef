import {
  createLexicalIndex,
  loadLexicalIndex,
  type IndexedChunk,
  type LexicalHit,
  type LexicalIndex,
} from './lexical-index';

/**
 * Search indexes per rag id that every replica keeps up to date without rebuilding them.
 *
 * Each change of a rag id's chunks is written to a change log with the next sequence number (`appendChange`: a
 * page's chunks replaced, pages removed, everything removed). A replica holding the index applies the changes it has
 * not seen, in order: when the change bus tells it (at once), and before every search after reading the rag id's
 * head sequence (one indexed read), so a lost bus message costs one catch-up, never a stale answer. The index is
 * persisted as a snapshot (`serialize`, a few MB at 100,000 chunks) with the sequence it covers; a new or
 * restarted replica loads the snapshot and applies the changes after it. Only a rag id that has neither snapshot nor
 * change log (chunks written before this index existed) is built from its chunks, once, and then snapshotted.
 */

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

interface Held {
  index: LexicalIndex;
  seq: number;
  /** Changes applied since the last snapshot this replica knows of. */
  unsnapshotted: number;
}

const DEFAULT_SNAPSHOT_EVERY = 500;
const DEFAULT_MAX_CATCH_UP = 2_000;
const CHANGE_READ_BATCH = 64;

export function createLiveIndexes(deps: LiveIndexesDeps) {
  const { store } = deps;
  const snapshotEvery = deps.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
  const maxCatchUp = deps.maxCatchUp ?? DEFAULT_MAX_CATCH_UP;
  const stats: LiveIndexStats = deps.stats ?? { builds: 0, snapshotLoads: 0, snapshotWrites: 0, changesApplied: 0 };
  const held = new Map<string, Held>();
  /** One operation at a time per rag id (catch-up, load, snapshot). */
  const queues = new Map<string, Promise<unknown>>();
  const textCache = new Map<string, string>();
  const textCacheSize = deps.textCacheSize ?? 20_000;
  const snapshotting = new Set<string>();
  const scheduled = new Map<string, NodeJS.Timeout>();

  function serial<T>(ragId: string, op: () => Promise<T>): Promise<T> {
    const prev = queues.get(ragId) ?? Promise.resolve();
    const next = prev.then(op, op);
    const tail = next.catch(() => undefined);
    queues.set(ragId, tail);
    void tail.then(() => {
      if (queues.get(ragId) === tail) queues.delete(ragId);
    });
    return next;
  }

  const remember = (id: string, text: string) => {
    textCache.delete(id);
    textCache.set(id, text);
    while (textCache.size > textCacheSize) textCache.delete(textCache.keys().next().value!);
  };

  function keep(ragId: string, h: Held): void {
    held.delete(ragId);
    held.set(ragId, h);
    while (held.size > deps.maxIndexes) held.delete(held.keys().next().value!);
  }

  function apply(h: Held, c: IndexChange): void {
    if (c.reset) h.index.clear();
    for (const url of c.removeUrls) h.index.removeUrl(url);
    for (const chunk of c.add) {
      h.index.add(chunk);
      remember(chunk.id, chunk.text);
    }
    h.seq = c.seq;
    h.unsnapshotted++;
    stats.changesApplied++;
  }

  /** Applies changes (from, to]; false when one is no longer kept. */
  async function catchUp(ragId: string, h: Held, to: number): Promise<boolean> {
    for (let from = h.seq; from < to; from += CHANGE_READ_BATCH) {
      const seqs = Array.from({ length: Math.min(CHANGE_READ_BATCH, to - from) }, (_, i) => from + i + 1);
      const changes = await store.changes(ragId, seqs);
      for (const c of changes) {
        if (!c) return false;
        apply(h, c);
      }
    }
    return true;
  }

  /** The index as of `head`: the one held, caught up; else the snapshot and what followed it; else a build. */
  async function load(ragId: string, head: IndexHead): Promise<Held> {
    const current = held.get(ragId);
    if (current && current.seq === head.seq) return current;
    if (current && current.seq < head.seq && head.seq - current.seq <= maxCatchUp) {
      if (await catchUp(ragId, current, head.seq)) return current;
    }
    if (head.snapshot) {
      const data = await store.readSnapshot(ragId, head.snapshot);
      if (data) {
        const h: Held = { index: loadLexicalIndex(data), seq: head.snapshot.seq, unsnapshotted: 0 };
        stats.snapshotLoads++;
        if (await catchUp(ragId, h, head.seq)) return h;
      }
    }
    if (head.seq === 0 || !head.snapshot) {
      // Nothing logged yet, or chunks from before the log: built from the chunks themselves, then snapshotted.
      const index = createLexicalIndex();
      for (const c of await store.allChunks(ragId)) index.add(c);
      stats.builds++;
      const h: Held = { index, seq: head.seq, unsnapshotted: head.seq === 0 && index.size === 0 ? 0 : snapshotEvery };
      return h;
    }
    // A snapshot replaced while it was read, or changes compacted away: the head again.
    const again = await store.head(ragId);
    if (again.snapshot && again.snapshot.id !== head.snapshot.id) return load(ragId, again);
    throw new Error(`index of ${ragId}: snapshot ${head.snapshot.id} unreadable`);
  }

  /** Brings the rag id's index up to its head (one read of the head, and what changed since). */
  function refresh(ragId: string): Promise<Held> {
    return serial(ragId, async () => {
      const head = await store.head(ragId);
      const h = await load(ragId, head);
      keep(ragId, h);
      if (h.unsnapshotted >= snapshotEvery) void persist(ragId);
      return h;
    });
  }

  /** Writes a snapshot of the held index when changes were applied since the last one. */
  function persist(ragId: string): Promise<void> {
    if (snapshotting.has(ragId)) return Promise.resolve();
    snapshotting.add(ragId);
    return serial(ragId, async () => {
      const h = held.get(ragId);
      if (!h || h.unsnapshotted === 0) return;
      const data = h.index.serialize();
      const seq = h.seq;
      h.unsnapshotted = 0;
      await store.writeSnapshot(ragId, seq, data);
      stats.snapshotWrites++;
    })
      .catch((err: unknown) => deps.onError?.(err as Error, ragId))
      .finally(() => snapshotting.delete(ragId));
  }

  /** The texts of chunks: those at hand (changes applied, answers given), the others from the store. */
  async function texts(ragId: string, ids: string[]): Promise<Map<string, string>> {
    const missing = ids.filter((id) => !textCache.has(id));
    if (missing.length > 0) for (const [id, text] of await store.texts(ragId, missing)) remember(id, text);
    const out = new Map<string, string>();
    for (const id of ids) {
      const t = textCache.get(id);
      if (t !== undefined) out.set(id, t);
    }
    return out;
  }

  return {
    stats,
    /**
     * The `topK` chunks that best match `query` on the index as of now (where they are and their scores);
     * `embedQuery` is asked for the query's vector only when the index has vectors (null: BM25 alone).
     */
    async rank(
      ragId: string,
      query: string,
      topK: number,
      embedQuery?: () => Promise<number[] | null>,
    ): Promise<LexicalHit[]> {
      const h = await refresh(ragId);
      const queryVector = h.index.vectors > 0 && embedQuery ? await embedQuery() : null;
      return h.index.search(query, topK, queryVector);
    },
    texts,
    /** `rank` with the chunks' texts. */
    async search(
      ragId: string,
      query: string,
      topK: number,
      embedQuery?: () => Promise<number[] | null>,
    ): Promise<LiveHit[]> {
      const hits = await this.rank(ragId, query, topK, embedQuery);
      const byId = await texts(
        ragId,
        hits.map((x) => x.id),
      );
      return hits.map((x) => ({ ...x, text: byId.get(x.id) ?? '' }));
    },
    /** Chunks in the rag id's index and how many have vectors (loads it). */
    async size(ragId: string): Promise<{ chunks: number; vectors: number }> {
      const h = await refresh(ragId);
      return { chunks: h.index.size, vectors: h.index.vectors };
    },
    /** A change was written (here or, through the bus, by another replica): apply it now if the index is held. */
    changed(ragId: string): void {
      if (!held.has(ragId)) return;
      refresh(ragId).catch((err: unknown) => deps.onError?.(err as Error, ragId));
    },
    /** Loads the index (if not held) and snapshots what it applied (after a training). */
    async persist(ragId: string): Promise<void> {
      await refresh(ragId);
      await persist(ragId);
    },
    /**
     * A change was written here: applied now (the index loaded if need be), snapshotted a little later, once for
     * all the changes of that moment (a burst of small trainings writes one snapshot, not one each).
     */
    persistSoon(ragId: string): void {
      refresh(ragId).catch((err: unknown) => deps.onError?.(err as Error, ragId));
      if (scheduled.has(ragId)) return;
      const timer = setTimeout(() => {
        scheduled.delete(ragId);
        void persist(ragId);
      }, deps.persistDelayMs ?? 10_000);
      timer.unref();
      scheduled.set(ragId, timer);
    },
    /** Forgets the held index of a rag id (tests: a replica that restarted). */
    drop(ragId: string): void {
      held.delete(ragId);
    },
    held: (ragId: string) => held.has(ragId),
  };
}

export type LiveIndexes = ReturnType<typeof createLiveIndexes>;
