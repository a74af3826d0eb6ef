import { createLexicalIndex, loadLexicalIndex, type LexicalIndex } from './lexical-index';
import type { IndexChange, IndexHead, LiveIndexStats, LiveIndexStore } from './live-index.types';

/** A rag id's index held in memory, and the sequence it covers. */
export interface Held {
  index: LexicalIndex;
  seq: number;
  /** Changes applied since the last snapshot this replica knows of. */
  unsnapshotted: number;
}

const CHANGE_READ_BATCH = 64;

/** What loading an index needs: where it is stored, and the indexes held already. */
export interface IndexLoaderDeps {
  store: LiveIndexStore;
  stats: LiveIndexStats;
  /** The indexes held (one held is caught up rather than loaded again). */
  held: ReadonlyMap<string, Held>;
  snapshotEvery: number;
  /** Catch-ups longer than this many changes load the newest snapshot instead. */
  maxCatchUp: number;
  /** Keeps the text of a chunk a change added at hand. */
  remember(id: string, text: string): void;
}

/** Loads a rag id's index as of a head (`load(ragId, head)`), applying the changes it has not seen. */
export function createIndexLoader(deps: IndexLoaderDeps) {
  const { store, stats, held, snapshotEvery, maxCatchUp } = deps;

  function apply(h: Held, c: IndexChange): void {
    if (c.reset) h.index.clear();
    for (const url of c.removeUrls) h.index.removeUrl(url);
    for (const chunk of c.add) {
      h.index.add(chunk);
      deps.remember(chunk.id, chunk.text);
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

  return load;
}
