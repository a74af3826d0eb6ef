import { atomicUpdateOne, isDuplicateKeyError, type Connection } from '@platform/db';

import { transcriptModels, type TallyDoc } from './transcript.model';

export interface Tally {
  calls: number;
  messages: number;
  durationMs: number;
  /** Day (or bucket) number → transcripts started in it (only those with some). */
  counts: Map<number, number>;
}

/** One transcript counted in a tally, under `key` (its day or bucket number). */
export interface TallyEntry {
  id: string;
  key: number;
}

/** Running counts (transcript.buckets.ts), so that totals, stats and page positions read a document or two. */
export function createTallyRepository(conn: Connection) {
  const { Tally } = transcriptModels(conn);

  async function addOne({ id, key }: TallyEntry, messages: number, durationMs: number): Promise<void> {
    const inc = { $inc: { calls: 1, messages, duration_ms: durationMs, [`counts.${key}`]: 1 } };
    // FerretDB's `$inc` is not atomic under concurrency: every tally update goes through atomicUpdateOne.
    if (await atomicUpdateOne(Tally, { _id: id }, inc)) return;
    try {
      await Tally.create({ _id: id, calls: 0, messages: 0, duration_ms: 0, counts: {} }); // the first transcript counted here
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // a concurrent first created it
    }
    await atomicUpdateOne(Tally, { _id: id }, inc);
  }

  return {
    /** Counts one transcript in each tally of `entries` (different documents, so at once). */
    async add(entries: TallyEntry[], messages: number, durationMs: number): Promise<void> {
      await Promise.all(entries.map((e) => addOne(e, messages, durationMs)));
    },
    async read(id: string): Promise<Tally> {
      const d = await Tally.findById(id).lean<TallyDoc>();
      const counts = new Map<number, number>();
      for (const [k, n] of Object.entries(d?.counts ?? {})) if (n > 0) counts.set(Number(k), n);
      return { calls: d?.calls ?? 0, messages: d?.messages ?? 0, durationMs: d?.duration_ms ?? 0, counts };
    },
  };
}

export type TallyRepository = ReturnType<typeof createTallyRepository>;
