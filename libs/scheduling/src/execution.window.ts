import type { ExecutionDoc } from './execution.model';
import { byKeyDesc, compareKeys, keyOf, type Key } from './execution.series';
import type { BucketSummaryDoc } from './execution.summaries';

/** What a page needs to know of its series (execution.pages.ts). */
export interface WindowInput {
  top: number;
  filled: number;
  depth: number;
  /** Matches per bucket, 0..top. */
  counts: number[];
  /** Runs of the buckets read so far (filled in as the window widens). */
  read: Map<number, ExecutionDoc[]>;
  matches: (d: ExecutionDoc) => boolean;
  readBuckets: (ks: number[]) => Promise<void>;
  summary: (k: number) => Promise<BucketSummaryDoc | null>;
}

export function maxKey(a: Key | null, b: Key | null): Key | null {
  if (!a) return b;
  if (!b) return a;
  return compareKeys(a, b) >= 0 ? a : b;
}

const keyBound = (t: Date | null, id: string | null): Key | null => (t && id ? { t: t.getTime(), id } : null);

/**
 * Ranks skip..end-1 of the matches, newest first. The window of buckets [a, b] where those ranks fall is read;
 * a run in it has a certain rank once it is newer than every run below a (the summaries' `pmax`) and older than every
 * run above b (the live buckets read, the summaries' `lo` up to `depth` buckets above, `pmax[b]` beyond: a final
 * bucket more than `depth` above b holds only newer runs). Otherwise the window widens towards the uncertainty.
 */
export async function pageOfWindow(w: WindowInput, skip: number, end: number): Promise<ExecutionDoc[]> {
  const above = new Array<number>(w.top + 2).fill(0); // matches in buckets > m
  for (let m = w.top - 1; m >= 0; m--) above[m] = (above[m + 1] ?? 0) + (w.counts[m + 1] ?? 0);
  const bucketOfRank = (r: number) => {
    let m = w.top;
    while (m > 0 && (above[m] ?? 0) + (w.counts[m] ?? 0) <= r) m--;
    return m;
  };
  const pmaxAt = async (k: number) =>
    k >= 0 ? await w.summary(k).then((s) => keyBound(s?.pmax_t ?? null, s?.pmax_id ?? null)) : null;

  /** A key no older than any run in buckets below `a`. */
  async function lowerBound(a: number): Promise<Key | null> {
    let bound = await pmaxAt(Math.min(a, w.filled) - 1);
    for (let m = w.filled; m < a; m++) for (const d of w.read.get(m) ?? []) bound = maxKey(bound, keyOf(d));
    return bound;
  }

  /** A key no newer than any run in buckets above `b` (null: none above). */
  async function upperBound(b: number): Promise<Key | null> {
    let bound: Key | null = null;
    const lower = (k: Key | null) => {
      if (k && (!bound || compareKeys(k, bound) < 0)) bound = k;
    };
    for (let m = Math.max(b + 1, w.filled); m <= w.top; m++) for (const d of w.read.get(m) ?? []) lower(keyOf(d));
    const near: number[] = [];
    for (let m = b + 1; m < w.filled && m <= b + w.depth; m++) near.push(m);
    for (const s of await Promise.all(near.map(w.summary))) lower(keyBound(s?.lo_t ?? null, s?.lo_id ?? null));
    if (b + w.depth + 1 < w.filled) lower(await pmaxAt(b));
    return bound;
  }

  let b = bucketOfRank(skip);
  let a = bucketOfRank(end - 1);
  for (;;) {
    const missing: number[] = [];
    for (let m = a; m <= b; m++) if (!w.read.has(m)) missing.push(m);
    const [, below, over] = await Promise.all([w.readBuckets(missing), lowerBound(a), upperBound(b)]);
    const window: ExecutionDoc[] = [];
    for (let m = a; m <= b; m++) window.push(...(w.read.get(m) ?? []).filter(w.matches));
    window.sort(byKeyDesc);
    const base = above[b] ?? 0;
    let widenUp = false;
    let widenDown = false;
    for (let r = skip; r < end; r++) {
      const x = window[r - base];
      if (r < base) widenUp = true;
      else if (!x) widenDown = true;
      else if (over && compareKeys(keyOf(x), over) >= 0) widenUp = true;
      else if (below && compareKeys(keyOf(x), below) <= 0) widenDown = true;
    }
    const stuck = (!widenUp || b >= w.top) && (!widenDown || a <= 0);
    if ((!widenUp && !widenDown) || stuck) return window.slice(Math.max(0, skip - base), end - base);
    if (widenUp && b < w.top) b++;
    if (widenDown && a > 0) a--;
  }
}
