import { createKeyedQueue } from './keyed-queue';
import type { LexicalHit } from './lexical-index';
import { createIndexLoader, type Held } from './live-index-load';
import { createSnapshotWriter } from './live-index-snapshots';
import { createTextCache } from './live-index-texts';
import type { LiveHit, LiveIndexesDeps, LiveIndexStats } from './live-index.types';

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

export type {
  IndexChange,
  IndexHead,
  LiveHit,
  LiveIndexesDeps,
  LiveIndexStats,
  LiveIndexStore,
  SnapshotRef,
} from './live-index.types';

const DEFAULT_SNAPSHOT_EVERY = 500;
const DEFAULT_MAX_CATCH_UP = 2_000;

export function createLiveIndexes(deps: LiveIndexesDeps) {
  const { store } = deps;
  const snapshotEvery = deps.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
  const stats: LiveIndexStats = deps.stats ?? { builds: 0, snapshotLoads: 0, snapshotWrites: 0, changesApplied: 0 };
  const held = new Map<string, Held>();
  /** One operation at a time per rag id (catch-up, load, snapshot). */
  const serial = createKeyedQueue();
  const { remember, texts } = createTextCache(store, deps.textCacheSize ?? 20_000);
  const maxCatchUp = deps.maxCatchUp ?? DEFAULT_MAX_CATCH_UP;
  const load = createIndexLoader({ store, stats, held, snapshotEvery, maxCatchUp, remember });
  const snapshots = createSnapshotWriter({ ...deps, stats, held, serial });

  function keep(ragId: string, h: Held): void {
    held.delete(ragId);
    held.set(ragId, h);
    while (held.size > deps.maxIndexes) held.delete(held.keys().next().value!);
  }

  /** Brings the rag id's index up to its head (one read of the head, and what changed since). */
  function refresh(ragId: string): Promise<Held> {
    return serial(ragId, async () => {
      const head = await store.head(ragId);
      const h = await load(ragId, head);
      keep(ragId, h);
      if (h.unsnapshotted >= snapshotEvery) void snapshots.persist(ragId);
      return h;
    });
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
      await snapshots.persist(ragId);
    },
    /**
     * A change was written here: applied now (the index loaded if need be), snapshotted a little later, once for
     * all the changes of that moment (a burst of small trainings writes one snapshot, not one each).
     */
    persistSoon(ragId: string): void {
      refresh(ragId).catch((err: unknown) => deps.onError?.(err as Error, ragId));
      snapshots.schedule(ragId);
    },
    /** Forgets the held index of a rag id (tests: a replica that restarted). */
    drop(ragId: string): void {
      held.delete(ragId);
    },
    held: (ragId: string) => held.has(ragId),
  };
}

export type LiveIndexes = ReturnType<typeof createLiveIndexes>;
