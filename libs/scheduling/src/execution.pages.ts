import type { Model } from '@platform/db';

import type { Filler } from './execution.filler';
import type { ExecutionDoc } from './execution.model';
import { BUCKET_SIZE, bucketIndexOf, byKeyDesc, readBucket, type Key } from './execution.series';
import { readStatusSide } from './execution.status-sides';
import type { BucketSummaryDoc, SeriesRootDoc } from './execution.summaries';
import { EXECUTION_STATUSES, type ExecutionStatus } from './execution.types';
import { pageOfWindow } from './execution.window';

export interface SeriesFilter {
  /** Wanted statuses; undefined: all. */
  statuses?: ExecutionStatus[];
  /** `triggered_at` ≥ from (inclusive) and < to (exclusive). */
  from?: Date;
  to?: Date;
}

export interface Page {
  items: ExecutionDoc[];
  total: number;
}

/** Buckets read per round while looking for the top of a series. */
const PROBE = 4;
/** Roots a reader remembers (where each list's final buckets end), to read live buckets while the root is read. */
const REMEMBERED_ROOTS = 10_000;
/** Summaries read per round of a search by time. */
const SEARCH_WAYS = 8;

/**
 * One page of a series (a webhook's or schedule's runs), newest first, with the exact total, reading a bounded
 * number of buckets (see execution.series.ts):
 * - final buckets (below the root's `filled`) are counted, not read: B positions minus their tombstones, and for a
 *   status filter minus (or plus) the smaller side of it (execution.status-sides.ts); a time range classifies
 *   them by their summaries' bounds, and reads only the few at its edges;
 * - the buckets above (the live top, usually one or two) are read;
 * - the page reads the buckets where its ranks fall; a run's rank is certain once every bucket that may hold a
 *   newer run is read or counted (bounds from the summaries: `pmax` below, `reach`/`depth` above), else the
 *   window widens. Order is exact although positions are taken in insert order, not in `triggered_at` order.
 */
export function createSeriesReader(deps: {
  Execution: Model<ExecutionDoc>;
  Roots: Model<SeriesRootDoc>;
  Buckets: Model<BucketSummaryDoc>;
  filler: Filler;
}) {
  const { Execution, Roots, Buckets } = deps;
  const lastRoots = new Map<string, SeriesRootDoc>();
  const remember = (series: string, root: SeriesRootDoc) => {
    if (lastRoots.size >= REMEMBERED_ROOTS) lastRoots.clear();
    lastRoots.set(series, root);
  };

  return async function readSeries(series: string, f: SeriesFilter, skip: number, limit: number): Promise<Page> {
    const wanted = f.statuses ? EXECUTION_STATUSES.filter((s) => f.statuses?.includes(s)) : undefined;
    if (wanted?.length === 0) return { items: [], total: 0 };
    const summaries = new Map<number, Promise<BucketSummaryDoc | null>>();
    const summary = (k: number) => {
      let p = summaries.get(k);
      if (!p) {
        p = Buckets.findById(`${series}#${k}`).lean<BucketSummaryDoc>().exec();
        summaries.set(k, p);
      }
      return p;
    };
    const findTombs = () => Execution.find({ tomb: series }, { seq: 1 }).lean<{ seq: number }[]>().exec();
    const read = new Map<number, ExecutionDoc[]>();
    // Final buckets only ever grow: where this process last saw them end is a safe place to start reading the live
    // ones while the root is read (a bucket read that has become final meanwhile is simply counted from its runs).
    const seen = lastRoots.get(series);
    const rootRead = Roots.findById(series).lean<SeriesRootDoc>().exec();
    let live: Promise<number>;
    let tombs: Promise<{ seq: number }[]> | undefined;
    let root: SeriesRootDoc | null;
    if (seen) {
      // Tombstones are rare (a position a failed insert left, a deleted run): looked for only once the root says so.
      if (seen.tombs) tombs = findTombs();
      if (seen.filled > 0) void summary(seen.filled - 1).catch(() => undefined);
      live = readLive(series, seen.filled, read);
      void live.catch(() => undefined); // awaited below, unless reading the root fails first
      void tombs?.catch(() => undefined);
      root = await rootRead;
      if ((root?.filled ?? 0) < seen.filled) {
        // The list is not what this process saw (its database was recreated): read it from its real start.
        await live.catch(() => undefined);
        read.clear();
        live = readLive(series, root?.filled ?? 0, read);
      }
    } else {
      root = await rootRead;
      // The newest final bucket bounds a first page from below: fetched while the live buckets are read.
      if (root && root.filled > 0) void summary(root.filled - 1).catch(() => undefined);
      live = readLive(series, root?.filled ?? 0, read);
    }
    if (root) remember(series, root);
    if (!tombs && root?.tombs) tombs = findTombs();
    const filled = root?.filled ?? 0;
    const depth = root?.depth ?? 0;
    // Buckets below the base were removed by the retention sweep: empty, and their summaries (if still there) unused.
    const base = Math.min(root?.base ?? 0, filled);
    const [top, tombList] = await Promise.all([live, tombs ?? []]);
    const tombsIn = new Map<number, number>();
    for (const t of tombList) tombsIn.set(bucketIndexOf(t.seq), (tombsIn.get(bucketIndexOf(t.seq)) ?? 0) + 1);
    if (top - filled > 2) deps.filler.kick(series);

    const inTime = (d: ExecutionDoc) => (!f.from || d.triggered_at >= f.from) && (!f.to || d.triggered_at < f.to);
    const matches = (d: ExecutionDoc) => inTime(d) && (!wanted || wanted.includes(d.status));

    // A status filter: one side of it read whole.
    let outPer: Map<number, number> | undefined;
    if (wanted && wanted.length < EXECUTION_STATUSES.length) {
      const live = [...read.values()].flat();
      const liveIn = live.filter((d) => wanted.includes(d.status)).length;
      const others = EXECUTION_STATUSES.filter((s) => !wanted.includes(s));
      // The latest runs tell which side is smaller; without enough of them, succeeded runs are taken as the many.
      const guessIn = live.length >= 10 ? liveIn <= live.length - liveIn : !wanted.includes('succeeded');
      const side = guessIn
        ? await readStatusSide(Execution, series, 'in', wanted)
        : await readStatusSide(Execution, series, 'out', others);
      if (side.side === 'in') {
        const all = side.docs.filter(inTime).sort(byKeyDesc);
        return { items: all.slice(skip, skip + limit), total: all.length };
      }
      outPer = new Map();
      for (const d of side.docs) outPer.set(bucketIndexOf(d.seq), (outPer.get(bucketIndexOf(d.seq)) ?? 0) + 1);
    }

    const pmaxAt = async (k: number): Promise<Key | null> => {
      const s = k >= 0 ? await summary(k) : null;
      return s?.pmax_t && s.pmax_id ? { t: s.pmax_t.getTime(), id: s.pmax_id } : null;
    };

    // Time range: final buckets wholly in, wholly out, or at an edge (read).
    // pmax only grows with k: an 8-way search, each round's summaries read at once.
    const firstReaching = async (at: Date): Promise<number> => {
      let lo = 0;
      let hi = filled; // the answer is in [lo, hi]: the first k with pmax ≥ at, or filled
      while (lo < hi) {
        const step = Math.max(1, Math.ceil((hi - lo) / SEARCH_WAYS));
        const probes: number[] = [];
        for (let k = lo; k < hi; k += step) probes.push(k);
        const reached = await Promise.all(probes.map(async (k) => ((await pmaxAt(k))?.t ?? -Infinity) >= at.getTime()));
        const first = reached.indexOf(true);
        if (first === 0) hi = lo;
        else if (first === -1) lo = (probes.at(-1) ?? lo) + 1;
        else {
          lo = (probes[first - 1] ?? lo) + 1;
          hi = probes[first] ?? hi;
        }
      }
      return lo;
    };
    const [jFrom, jTo] = await Promise.all([f.from ? firstReaching(f.from) : 0, f.to ? firstReaching(f.to) : filled]);
    const classOf = (m: number): 'in' | 'out' | 'edge' => {
      if (m < base) return 'out';
      if (m < jFrom || (f.to && m > jTo + depth)) return 'out';
      if ((f.from && m <= jFrom + depth) || (f.to && m >= jTo)) return 'edge';
      return 'in';
    };
    const edges: number[] = [];
    for (let m = 0; m < filled; m++) if (!read.has(m) && classOf(m) === 'edge') edges.push(m);
    await readBuckets(series, edges, read);

    const counts = new Array<number>(top + 1).fill(0);
    for (let m = 0; m <= top; m++) {
      const runs = read.get(m);
      if (runs) counts[m] = runs.filter(matches).length;
      else if (m < filled && classOf(m) === 'in')
        counts[m] = BUCKET_SIZE - (tombsIn.get(m) ?? 0) - (outPer?.get(m) ?? 0);
    }
    let total = 0;
    for (const c of counts) total += c;
    if (skip >= total) return { items: [], total };
    const items = await pageOfWindow(
      {
        top,
        filled,
        depth,
        counts,
        read,
        matches,
        summary: (k) => (k < base ? Promise.resolve(null) : summary(k)),
        readBuckets: (ks) => readBuckets(series, ks, read),
      },
      skip,
      Math.min(skip + limit, total),
    );
    return { items, total };
  };

  /** Reads the buckets at and above `from` until two in a row are empty; returns the highest non-empty one. */
  async function readLive(series: string, from: number, read: Map<number, ExecutionDoc[]>): Promise<number> {
    let top = from - 1;
    for (let k = from; k - 1 - top < 2; k += PROBE) {
      const batch = await Promise.all(Array.from({ length: PROBE }, (_, i) => readBucket(Execution, series, k + i)));
      batch.forEach((docs, i) => {
        if (docs.length === 0) return;
        read.set(
          k + i,
          docs.filter((d) => !d.tomb),
        );
        top = k + i;
      });
    }
    return top;
  }

  async function readBuckets(series: string, ks: number[], read: Map<number, ExecutionDoc[]>): Promise<void> {
    for (let i = 0; i < ks.length; i += PROBE) {
      const part = ks.slice(i, i + PROBE);
      const docs = await Promise.all(part.map((k) => readBucket(Execution, series, k)));
      part.forEach((k, j) =>
        read.set(
          k,
          (docs[j] ?? []).filter((d) => !d.tomb),
        ),
      );
    }
  }
}

export type SeriesReader = ReturnType<typeof createSeriesReader>;
