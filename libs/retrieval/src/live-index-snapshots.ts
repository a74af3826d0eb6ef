import type { KeyedQueue } from './keyed-queue';
import type { Held } from './live-index-load';
import type { LiveIndexesDeps, LiveIndexStats, LiveIndexStore } from './live-index.types';

/** What writing snapshots needs: the indexes held, and the per-rag-id queue their operations go through. */
export interface SnapshotWriterDeps extends Pick<LiveIndexesDeps, 'onError' | 'persistDelayMs'> {
  store: LiveIndexStore;
  stats: LiveIndexStats;
  held: ReadonlyMap<string, Held>;
  serial: KeyedQueue;
}

/** Writes snapshots of the held indexes: now (`persist`) or a little later (`schedule`). */
export function createSnapshotWriter(deps: SnapshotWriterDeps) {
  const { store, stats, held, serial } = deps;
  const snapshotting = new Set<string>();
  const scheduled = new Map<string, NodeJS.Timeout>();

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

  /** Persists the rag id's index `persistDelayMs` after the first call, once for every call until then. */
  function schedule(ragId: string): void {
    if (scheduled.has(ragId)) return;
    const timer = setTimeout(() => {
      scheduled.delete(ragId);
      void persist(ragId);
    }, deps.persistDelayMs ?? 10_000);
    timer.unref();
    scheduled.set(ragId, timer);
  }

  return { persist, schedule };
}
