import type { Connection, Model } from '@platform/db';

import type { ExecutionDoc } from './execution.model';
import type { SeriesRootDoc } from './execution.summaries';

/**
 * Where a run sits in its list. FerretDB 1.24 serves only top-level equality filters from an index; it sorts, skips,
 * limits and counts by reading every matching document (about 0.1 ms each), so a webhook with 100,000 runs cannot be
 * paged by filtering on its id. Instead every run of a series (its webhook or schedule) takes the next free position
 * `seq`, made unique by the `slot` index (the insert itself is the claim: no counter, no extra write), and positions
 * are grouped in buckets of B: a page reads a few buckets by one indexed equality each, on FerretDB and MongoDB
 * alike. Counts come from positions: a final bucket (execution.filler.ts) holds B runs minus its tombstones.
 */
export const BUCKET_SIZE = 25;

/** A series: one webhook's or schedule's runs, keyed with their owner so that another owner's list is empty. */
export const seriesKeyOf = (owner: { user_id: string; org_id: string }, parent: string) =>
  `${owner.user_id}|${owner.org_id}|${parent}`;
export const bucketIndexOf = (seq: number) => Math.floor(seq / BUCKET_SIZE);
export const slotKey = (series: string, seq: number) => `${series}#${seq}`;
export const bucketKey = (series: string, k: number) => `${series}#b${k}`;

/** The lists' order: newest first by `triggered_at`, then by id. */
export interface Key {
  t: number;
  id: string;
}

/** Ascending comparison of keys (negative: a is older). */
export function compareKeys(a: Key, b: Key): number {
  return a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export const keyOf = (d: { triggered_at: Date; _id: { toString(): string } }): Key => ({
  t: d.triggered_at.getTime(),
  id: d._id.toString(),
});

/** Newest first. */
export const byKeyDesc = <T extends { triggered_at: Date; _id: { toString(): string } }>(a: T, b: T) =>
  compareKeys(keyOf(b), keyOf(a));

/** Runs and tombstones of bucket `k` (tombstones have only their position). */
export function readBucket(Execution: Model<ExecutionDoc>, series: string, k: number): Promise<ExecutionDoc[]> {
  return Execution.find({ bucket: bucketKey(series, k) }).lean<ExecutionDoc[]>();
}

/** Empty buckets tolerated below the top: positions whose inserts failed for good leave holes, rarely a bucket. */
const EMPTY_TOLERANCE = 2;

/**
 * The highest non-empty bucket of the series at or above `from` (from - 1 when none), found by galloping up and
 * bisecting with one indexed lookup per probe. A probe counts as empty only when it and the next bucket are.
 */
export async function topBucket(Execution: Model<ExecutionDoc>, series: string, from: number): Promise<number> {
  const probe = async (k: number): Promise<boolean> => {
    const hits = await Promise.all(
      Array.from({ length: EMPTY_TOLERANCE }, (_, i) => Execution.exists({ bucket: bucketKey(series, k + i) })),
    );
    return hits.some((h) => h !== null);
  };
  let lo = from - 1; // highest known occupied (or from - 1)
  let step = 1;
  let hi = from; // first candidate
  while (await probe(hi)) {
    lo = hi;
    hi = from + step;
    step *= 2;
  }
  // lo is occupied (or the start), hi and hi + 1 are empty: bisect between them. At the end hi = lo + 1 is empty,
  // so the hit at lo was lo itself.
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await probe(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Series whose next position a process remembers. */
const REMEMBERED_SERIES = 20_000;

interface SeriesState {
  next: number | null;
  free: number[];
  collisions: number;
  base: number;
  discovering: Promise<void> | null;
}

/**
 * Hands out positions of series, per connection and process. Positions are taken in order and inserted at once;
 * another process (or a restart) having taken one shows as a duplicate key, after which the process looks the top
 * up again. A position whose insert failed for another reason goes back to the pool, so holes stay rare.
 */
export function createPositionAllocator(Execution: Model<ExecutionDoc>, Roots: Model<SeriesRootDoc>) {
  const states = new Map<string, SeriesState>();
  const stateOf = (series: string) => {
    let s = states.get(series);
    if (!s) {
      // Bounded: a forgotten series only costs a look-up of its top on its next run.
      if (states.size >= REMEMBERED_SERIES) states.clear();
      s = { next: null, free: [], collisions: 0, base: 0, discovering: null };
      states.set(series, s);
    }
    return s;
  };

  async function discover(series: string, s: SeriesState): Promise<void> {
    const root = await Roots.findById(series).lean<SeriesRootDoc>();
    const from = Math.max(root?.filled ?? 0, s.base);
    const top = await topBucket(Execution, series, from);
    if (top < from) {
      s.next = from * BUCKET_SIZE;
      return;
    }
    const docs = await Execution.find({ bucket: bucketKey(series, top) }, { seq: 1 }).lean<{ seq: number }[]>();
    s.next = Math.max(top * BUCKET_SIZE, ...docs.map((d) => d.seq + 1));
  }

  return {
    async take(series: string): Promise<number> {
      const s = stateOf(series);
      while (s.next === null) {
        s.discovering ??= discover(series, s).finally(() => {
          s.discovering = null;
        });
        await s.discovering;
      }
      const reused = s.free.shift();
      if (reused !== undefined) return reused;
      return s.next++;
    },
    /** The insert at `seq` succeeded. */
    stored(series: string): void {
      stateOf(series).collisions = 0;
    },
    /** Someone else holds `seq`: try the next one, and after a few misses look the top up again. */
    collided(series: string, seq: number): void {
      const s = stateOf(series);
      s.collisions += 1;
      s.base = Math.max(s.base, bucketIndexOf(seq));
      if (s.collisions >= 3 || s.next === null) {
        s.next = null;
        s.free = [];
        s.collisions = 0;
      } else s.next = Math.max(s.next, seq + 1);
    },
    /** The insert at `seq` failed for another reason: hand it out again. */
    release(series: string, seq: number): void {
      const s = stateOf(series);
      s.free.push(seq);
      s.free.sort((a, b) => a - b);
    },
  };
}

export type PositionAllocator = ReturnType<typeof createPositionAllocator>;

const allocators = new WeakMap<Connection, PositionAllocator>();

/** One allocator per connection, shared by every repository on it (the scheduler makes several). */
export function positionAllocatorFor(
  conn: Connection,
  Execution: Model<ExecutionDoc>,
  Roots: Model<SeriesRootDoc>,
): PositionAllocator {
  let a = allocators.get(conn);
  if (!a) {
    a = createPositionAllocator(Execution, Roots);
    allocators.set(conn, a);
  }
  return a;
}
