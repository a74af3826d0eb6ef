import { atomicUpdateOne, isDuplicateKeyError, mongoose, type Model } from '@platform/db';

import type { ExecutionDoc } from './execution.model';
import {
  BUCKET_SIZE,
  bucketKey,
  compareKeys,
  keyOf,
  readBucket,
  slotKey,
  topBucket,
  type Key,
} from './execution.series';
import { markTombstones, type BucketSummaryDoc, type SeriesRootDoc } from './execution.summaries';

/** Buckets of slack below the top before one is filled: inserts in flight there are still landing. */
const SLACK = 2;
/** Buckets filled per round (one root update each). */
const ROUND = 200;
/** How far back an inversion is followed before the depth is taken as that far. */
const MAX_WALK = 10_000;

const summaryKey = (series: string, k: number) => `${series}#${k}`;

function pmaxOf(d: BucketSummaryDoc | null): Key | null {
  return d?.pmax_t && d.pmax_id ? { t: d.pmax_t.getTime(), id: d.pmax_id } : null;
}

const maxKey = (a: Key | null, b: Key | null) => (!a ? b : !b ? a : compareKeys(a, b) >= 0 ? a : b);

/**
 * Makes buckets final, oldest first, off the request path. A bucket is filled once SLACK newer buckets exist:
 * each position it lacks gets a tombstone (an insert into the unique `slot` index, so a late insert of that
 * position fails and takes a newer one), which freezes its membership; then its summary is written and the series
 * root moves past it with one atomic update conditioned on where it was (a concurrent filler's work is the same and
 * harmless). Lists then count a final bucket as B minus its tombstones and read it only when a page needs it.
 */
export function createFiller(
  Execution: Model<ExecutionDoc>,
  Roots: Model<SeriesRootDoc>,
  Buckets: Model<BucketSummaryDoc>,
) {
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();

  async function sealBucket(series: string, k: number): Promise<ExecutionDoc[]> {
    for (;;) {
      const docs = await readBucket(Execution, series, k);
      const present = new Set(docs.map((d) => d.seq));
      const missing: number[] = [];
      for (let seq = k * BUCKET_SIZE; seq < (k + 1) * BUCKET_SIZE; seq++) if (!present.has(seq)) missing.push(seq);
      if (missing.length === 0) return docs;
      const tombs = missing.map((seq) => ({
        _id: new mongoose.Types.ObjectId(),
        series,
        seq,
        slot: slotKey(series, seq),
        bucket: bucketKey(series, k),
        fire_key: `~${slotKey(series, seq)}`,
        tomb: series,
      }));
      await markTombstones(Roots, series);
      try {
        await Execution.collection.insertMany(tombs, { ordered: false });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // A late run (or another filler) took some of them: read the bucket again.
      }
    }
  }

  async function pmaxAt(series: string, k: number, cache: Map<number, Key | null>): Promise<Key | null> {
    if (k < 0) return null;
    if (!cache.has(k)) cache.set(k, pmaxOf(await Buckets.findById(summaryKey(series, k)).lean<BucketSummaryDoc>()));
    return cache.get(k) ?? null;
  }

  /** The first bucket j whose pmax is newer than `lo` (buckets before it hold only older runs). */
  async function reachOf(series: string, k: number, lo: Key, cache: Map<number, Key | null>): Promise<number> {
    let reach = k;
    for (let j = k - 1; j >= 0 && k - j <= MAX_WALK; j--) {
      const p = await pmaxAt(series, j, cache);
      if (!p || compareKeys(p, lo) <= 0) break;
      reach = j;
    }
    return reach;
  }

  /** Fills up to ROUND buckets; true when more are ready. */
  async function fillRound(series: string): Promise<boolean> {
    let root = await Roots.findById(series).lean<SeriesRootDoc>();
    if (!root) {
      await Roots.collection.insertOne({ _id: series, filled: 0, depth: 0 } as never).catch((err: unknown) => {
        if (!isDuplicateKeyError(err)) throw err;
      });
      root = { _id: series, filled: 0, depth: 0 };
    }
    const from = root.filled;
    const top = await topBucket(Execution, series, from);
    const last = Math.min(top - SLACK, from + ROUND - 1);
    if (last < from) return false;
    const cache = new Map<number, Key | null>();
    let prev = await pmaxAt(series, from - 1, cache);
    let depth = root.depth;
    for (let k = from; k <= last; k++) {
      const runs = (await sealBucket(series, k)).filter((d) => !d.tomb).map(keyOf);
      const lo = runs.reduce<Key | null>((m, x) => (!m || compareKeys(x, m) < 0 ? x : m), null);
      const hi = runs.reduce<Key | null>((m, x) => maxKey(m, x), null);
      const pmax = maxKey(prev, hi);
      const reach = lo && prev && compareKeys(prev, lo) > 0 ? await reachOf(series, k, lo, cache) : k;
      depth = Math.max(depth, k - reach);
      const summary: BucketSummaryDoc = {
        _id: summaryKey(series, k),
        series,
        k,
        lo_t: lo ? new Date(lo.t) : null,
        lo_id: lo?.id ?? null,
        hi_t: hi ? new Date(hi.t) : null,
        hi_id: hi?.id ?? null,
        pmax_t: pmax ? new Date(pmax.t) : null,
        pmax_id: pmax?.id ?? null,
        reach,
      };
      await Buckets.collection.insertOne(summary as never).catch((err: unknown) => {
        if (!isDuplicateKeyError(err)) throw err; // written by a concurrent filler: the same bounds
      });
      cache.set(k, pmax);
      prev = pmax;
    }
    await atomicUpdateOne(Roots, { _id: series, filled: from }, { $set: { filled: last + 1, depth } });
    return top - SLACK > last;
  }

  function kick(series: string): void {
    if (running.has(series)) {
      again.add(series);
      return;
    }
    const run = (async () => {
      for (let rounds = 0; rounds < 1000; rounds++) {
        again.delete(series);
        const more = await fillRound(series);
        if (!more && !again.has(series)) return;
      }
    })()
      .catch(() => undefined) // the next insert or list of the series asks again
      .finally(() => running.delete(series));
    running.set(series, run);
  }

  return {
    /** Fills the series' ready buckets in the background (once at a time per series and process). */
    kick,
    /** Fills every ready bucket of the series now. */
    async fill(series: string): Promise<void> {
      while (await fillRound(series));
    },
    /** Waits for background fills (shutdown, tests, benchmarks). */
    async settle(): Promise<void> {
      while (running.size > 0) await Promise.all([...running.values()]);
    },
  };
}

export type Filler = ReturnType<typeof createFiller>;

const fillers = new WeakMap<Model<ExecutionDoc>, Filler>();

/** One filler per connection's executions model, shared by every repository on it (one fill per series at a time). */
export function fillerFor(
  Execution: Model<ExecutionDoc>,
  Roots: Model<SeriesRootDoc>,
  Buckets: Model<BucketSummaryDoc>,
): Filler {
  let f = fillers.get(Execution);
  if (!f) {
    f = createFiller(Execution, Roots, Buckets);
    fillers.set(Execution, f);
  }
  return f;
}
