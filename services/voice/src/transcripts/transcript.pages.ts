import type { TallyRepository } from './tally.repository';
import { agentBucketKey, BUCKET_MS, DAY_MS, dayTallyId, orgBucketKey, tallyId } from './transcript.buckets';
import type { TranscriptRepository } from './transcript.repository';
import type { ListQuery, TranscriptSummaryRecord } from './transcript.types';

export interface PageDeps {
  repo: Pick<TranscriptRepository, 'bucket'>;
  tallies: Pick<TallyRepository, 'read'>;
}

/** A day or a bucket, and how many matching transcripts it holds. */
interface Slot {
  key: number;
  n: number;
}

/** The slots (in order) that ranks offset..offset+count-1 fall in, with the part of each they take. */
function within(slots: Slot[], offset: number, count: number): { key: number; skip: number; take: number }[] {
  const out: { key: number; skip: number; take: number }[] = [];
  let skip = offset;
  let left = count;
  for (const s of slots) {
    if (left <= 0) break;
    if (skip >= s.n) {
      skip -= s.n;
      continue;
    }
    const take = Math.min(s.n - skip, left);
    out.push({ key: s.key, skip, take });
    left -= take;
    skip = 0;
  }
  return out;
}

/** Memoizes an async lookup per key (a bucket or day tally is read at most once per page). */
function cached<V>(load: (key: number) => Promise<V>): (key: number) => Promise<V> {
  const seen = new Map<number, Promise<V>>();
  return (key) => {
    let p = seen.get(key);
    if (!p) seen.set(key, (p = load(key)));
    return p;
  };
}

const sum = (slots: Slot[]) => slots.reduce((s, x) => s + x.n, 0);

/**
 * One page of an organization's (or one agent's) transcripts by `startedAt` (then id) and the exact total, from the
 * tallies (transcript.buckets.ts): whole days and buckets are counted, not read; only the buckets the page's ranks fall
 * in are read, with those a `from`/`to` cuts through (to count them).
 */
export async function readPage(
  deps: PageDeps,
  orgId: string,
  q: ListQuery,
): Promise<{ items: TranscriptSummaryRecord[]; total: number }> {
  const agent = q.agentId;
  const from = q.from?.getTime() ?? -Infinity;
  const to = q.to?.getTime() ?? Infinity;
  const dir = q.sort === 'asc' ? 1 : -1;
  const overlaps = (start: number, width: number) => start + width > from && start < to;
  const covered = (start: number, width: number) => start >= from && start + width <= to;
  const inOrder = (keys: Iterable<number>, width: number) =>
    [...keys].filter((k) => overlaps(k * width, width)).sort((a, b) => (a - b) * dir);

  const docsOf = cached(async (bucket) => {
    const docs =
      agent === undefined
        ? await deps.repo.bucket('org_bucket', orgBucketKey(orgId, bucket))
        : await deps.repo.bucket('agent_bucket', agentBucketKey(orgId, agent, bucket));
    return docs
      .filter((d) => {
        const ms = Date.parse(d.startedAt);
        return ms >= from && ms < to;
      })
      .sort(
        (a, b) =>
          dir *
          (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
  });
  const bucketsOf = cached(async (day): Promise<Slot[]> => {
    const t = await deps.tallies.read(dayTallyId(orgId, day, agent));
    return Promise.all(
      inOrder(t.counts.keys(), BUCKET_MS).map(async (b) => ({
        key: b,
        n: covered(b * BUCKET_MS, BUCKET_MS) ? (t.counts.get(b) ?? 0) : (await docsOf(b)).length,
      })),
    );
  });

  const tally = await deps.tallies.read(tallyId(orgId, agent));
  const days = await Promise.all(
    inOrder(tally.counts.keys(), DAY_MS).map(async (d) => ({
      key: d,
      n: covered(d * DAY_MS, DAY_MS) ? (tally.counts.get(d) ?? 0) : sum(await bucketsOf(d)),
    })),
  );
  const pages = await Promise.all(
    within(days, q.offset, q.limit).map(async (day) => {
      const parts = within(await bucketsOf(day.key), day.skip, day.take);
      return (await Promise.all(parts.map(async (p) => (await docsOf(p.key)).slice(p.skip, p.skip + p.take)))).flat();
    }),
  );
  return { items: pages.flat(), total: sum(days) };
}
