import { randomUUID } from 'node:crypto';

import {
  atomicUpdateEach,
  atomicUpdateOne,
  ensureLookupIndexes,
  isDuplicateKeyError,
  modelFor,
  mongoose,
  type Connection,
  type Model,
} from '@platform/db';
import type { Logger } from '@platform/logger';

import { executionModel, type ExecutionDoc } from './execution.model';
import { BUCKET_SIZE, bucketIndexOf } from './execution.series';
import { bucketSummaryModel, markTombstones, seriesRootModel, type SeriesRootDoc } from './execution.summaries';
import type { ExecutionStatus } from './execution.types';

const DAY_MS = 24 * 3600_000;
const HOUR_MS = 3_600_000;
/** Only ended runs are removed; a run still queued or running is the outbox's (run-recovery.ts). */
const ENDED: ExecutionStatus[] = ['succeeded', 'failed', 'skipped'];

/**
 * The sweep's own documents (collection `execution_retention`): `cursor` (every hour below `next` is swept),
 * `lease` (the replica sweeping, until when), `pending:<uuid>` (the tombstones of a batch being removed), `revisit`
 * (hours swept while a run of theirs had not ended).
 */
interface RetentionStateDoc {
  _id: string;
  next?: number;
  hours?: number[];
  holder?: string;
  until?: Date;
  tombs?: TombDoc[];
}

/** A removed run's position (as `delete` and the filler write them): its bucket's count stays exact. */
interface TombDoc {
  _id: mongoose.Types.ObjectId;
  series: string;
  seq: number;
  slot: string;
  bucket: string;
  fire_key: string;
  tomb: string;
}

const stateSchema = new mongoose.Schema<RetentionStateDoc>(
  { _id: String, next: Number, hours: [Number], holder: String, until: Date, tombs: mongoose.Schema.Types.Mixed },
  { versionKey: false },
);

function stateModel(conn: Connection): Model<RetentionStateDoc> {
  return modelFor(conn, 'ExecutionRetention', stateSchema, 'execution_retention');
}

export interface ExecutionRetentionDeps {
  conn: Connection;
  /** Ended runs triggered more than this many days ago are removed (1..3650). */
  retentionDays: number;
  clock: () => Date;
  logger: Logger;
  /** Runs read, removed and tombstoned per batch: each delete command names at most this many (default 500). */
  batchSize?: number;
  /** Pause after each batch that removed runs, so that intake keeps the store (default 200 ms). */
  pauseMs?: number;
  /** This sweeper's name in the lease (default a random one). */
  holder?: string;
  /** How long a lease lasts without renewal; a replica that died holding it is replaced after this (default 60 s). */
  leaseMs?: number;
  /** Hours looked at per sweep at most (default 90 days' worth): a longer catch-up goes on at the next sweep. */
  maxHours?: number;
}

export interface RetentionReport {
  /** False when another replica held the lease (nothing done). */
  ran: boolean;
  /** Runs removed (each becomes a tombstone until its whole bucket goes). */
  removed: number;
  /** Batches that removed runs. */
  batches: number;
  /** Hours of `triggered_at` looked at. */
  hours: number;
  /** Final buckets removed whole (runs' tombstones and summary), over every series. */
  buckets: number;
}

/**
 * Execution retention: a paced sweep that works on MongoDB and FerretDB alike (FerretDB 1.24 ignores TTL indexes,
 * and a TTL index would break the lists' counts anyway: a final bucket is counted as B positions minus its
 * tombstones, see execution.series.ts).
 *
 * Runs are found by their `hour` (one indexed equality per hour of `triggered_at`, the only shape FerretDB pushes
 * down; `_id: {$in}` alone would read the whole collection there), oldest first from a cursor that remembers the
 * last hour swept; an hour is swept once wholly past the window, so a run goes within an hour of leaving it (plus
 * the sweep interval), and an idle stretch costs one read per hour. Each batch of at most `batchSize` ended runs is
 * read from a cursor over its hour and removed by one `deleteMany({hour, _id: {$in}})`; its positions are taken by
 * tombstones at once (insertMany), so every count stays exact; the tombstones are written down first (a `pending`
 * document), so a sweeper dying between the delete and the insert leaves them to the next sweep. Once every
 * position of a final bucket at the bottom of a series is a tombstone, the series' `base` moves past it and its
 * tombstones and summary are deleted (a series is looked at once two buckets' worth of its runs went, and at the
 * end of the sweep): what stays per series is bounded (the straddling and live buckets). The sweep pauses
 * `pauseMs` after every `batchSize` runs removed, so it never takes the store from intake for long.
 *
 * One replica sweeps at a time: a lease document (unique-key insert, conditional delete of a stale one, renewed
 * after each batch); a replica that finds it held does nothing.
 */
export function createExecutionRetention(deps: ExecutionRetentionDeps) {
  const Execution = executionModel(deps.conn);
  const Roots = seriesRootModel(deps.conn);
  const Buckets = bucketSummaryModel(deps.conn);
  const State = stateModel(deps.conn);
  const batchSize = deps.batchSize ?? 500;
  const pauseMs = deps.pauseMs ?? 200;
  const holder = deps.holder ?? randomUUID();
  const leaseMs = deps.leaseMs ?? 60_000;
  const maxHours = deps.maxHours ?? 90 * 24;
  const windowMs = deps.retentionDays * DAY_MS;
  /** Series whose root already says it has tombstones. */
  const marked = new Set<string>();
  let stopping = false;
  /** When this replica's lease ends (as it last wrote it). */
  let leaseUntil = 0;

  async function takeLease(): Promise<boolean> {
    for (let i = 0; i < 3; i++) {
      const now = deps.clock().getTime();
      try {
        await State.collection.insertOne({ _id: 'lease', holder, until: new Date(now + leaseMs) } as never);
        leaseUntil = now + leaseMs;
        return true;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      const cur = await State.findById('lease').lean<RetentionStateDoc>();
      if (!cur) continue;
      if (cur.holder === holder) return renewLease();
      if (cur.until && cur.until.getTime() > now) return false;
      // Stale (its holder died): removed only as it was, so two replicas taking it over do not both win.
      await State.collection.deleteOne({ _id: 'lease', holder: cur.holder, until: cur.until } as never);
    }
    return false;
  }

  async function renewLease(): Promise<boolean> {
    const until = deps.clock().getTime() + leaseMs;
    if ((await atomicUpdateOne(State, { _id: 'lease', holder }, { $set: { until: new Date(until) } })) === null)
      return false;
    leaseUntil = until;
    return true;
  }

  /** Renews the lease once half of it has passed (not after every batch: four commands on FerretDB). */
  async function keepLease(): Promise<void> {
    if (deps.clock().getTime() < leaseUntil - leaseMs / 2) return;
    if (!(await renewLease())) throw new Error('retention lease lost');
  }

  async function releaseLease(): Promise<void> {
    await State.collection.deleteOne({ _id: 'lease', holder } as never);
  }

  /** Where the sweep starts the first time: the oldest hour stored (one sorted read, once), else the window's edge. */
  async function readCursor(end: number): Promise<number> {
    const cur = await State.findById('cursor').lean<RetentionStateDoc>();
    if (cur?.next !== undefined) return cur.next;
    const oldest = await Execution.findOne({ hour: { $exists: true } }, { hour: 1 })
      .sort({ hour: 1 })
      .lean<{ hour?: number }>();
    const next = Math.min(oldest?.hour ?? end, end);
    await State.collection.insertOne({ _id: 'cursor', next } as never).catch((err: unknown) => {
      if (!isDuplicateKeyError(err)) throw err;
    });
    return next;
  }

  async function saveCursor(next: number): Promise<void> {
    await State.collection.updateOne({ _id: 'cursor' } as never, { $set: { next } });
  }

  /** Inserts the tombstones of batches whose sweeper stopped between their delete and their insert. */
  async function applyPending(): Promise<void> {
    const pending = await State.find({ tombs: { $exists: true } }).lean<RetentionStateDoc[]>();
    for (const p of pending) {
      await insertTombs(p.tombs ?? []);
      await State.collection.deleteOne({ _id: p._id } as never);
    }
  }

  async function insertTombs(tombs: TombDoc[]): Promise<void> {
    if (tombs.length === 0) return;
    try {
      await Execution.collection.insertMany(tombs, { ordered: false });
    } catch (err) {
      // Positions already holding a tombstone (an earlier try) or a run (it was not removed) keep it.
      if (!isDuplicateKeyError(err)) throw err;
    }
  }

  /**
   * Marks the series' roots as having tombstones (lists look for them only then), before any is written: what
   * markTombstones does for one, for a batch's series at once (reads in parallel, one insert of the missing roots,
   * one batched atomic update of the others). Each series once per process.
   */
  async function markSeries(series: string[]): Promise<void> {
    const fresh = series.filter((s) => !marked.has(s));
    if (fresh.length === 0) return;
    const roots: (SeriesRootDoc & { _rev?: number })[] = [];
    for (let i = 0; i < fresh.length; i += 16)
      for (const r of await Promise.all(
        fresh.slice(i, i + 16).map((s) => Roots.findById(s).lean<SeriesRootDoc & { _rev?: number }>()),
      ))
        if (r) roots.push(r);
    const known = new Map(roots.map((r) => [r._id, r]));
    const missing = fresh.filter((s) => !known.has(s));
    const update: { id: string; rev?: number }[] = roots
      .filter((r) => !r.tombs)
      .map((r) => ({ id: r._id, rev: r._rev ?? 0 }));
    if (missing.length) {
      try {
        await Roots.collection.insertMany(
          missing.map((s) => ({ _id: s, filled: 0, depth: 0, tombs: true }) as never),
          { ordered: false },
        );
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // Created meanwhile (a fill): set the flag on them too (without a known revision).
        for (const s of missing) update.push({ id: s });
      }
    }
    if (update.length) {
      const done = await atomicUpdateEach(
        Roots,
        update.map((u) => ({ id: u.id, filter: {}, update: { $set: { tombs: true } }, rev: u.rev })),
      );
      const failed = done.find((d) => d instanceof Error);
      if (failed) throw failed;
      // null: the revision moved (a fill wrote the root meanwhile) or the root was inserted above: set it singly.
      for (let i = 0; i < done.length; i++) if (done[i] === null) await markTombstones(Roots, update[i]!.id);
    }
    if (marked.size >= 100_000) marked.clear();
    for (const s of fresh) marked.add(s);
  }

  /** Removes one batch of ended runs of `hour`; returns how many of each series it removed. */
  async function removeBatch(hour: number, docs: ExecutionDoc[]): Promise<Map<string, number>> {
    const series = new Map<string, number>();
    const tombs: TombDoc[] = [];
    for (const d of docs) {
      if (d.series === undefined || d.seq === undefined) continue; // stored before series: no position to keep
      series.set(d.series, (series.get(d.series) ?? 0) + 1);
      tombs.push({
        _id: d._id,
        series: d.series,
        seq: d.seq,
        slot: d.slot,
        bucket: d.bucket,
        fire_key: d.fire_key,
        tomb: d.series,
      });
    }
    // Lists look for tombstones of a series only once its root says so: before any is written.
    await markSeries([...series.keys()]);
    const pendingId = `pending:${randomUUID()}`;
    if (tombs.length) await State.collection.insertOne({ _id: pendingId, tombs } as never);
    await Execution.collection.deleteMany({
      hour,
      _id: { $in: docs.map((d) => d._id) },
      status: { $in: ENDED },
    });
    if (tombs.length) {
      await insertTombs(tombs);
      await State.collection.deleteOne({ _id: pendingId } as never);
    }
    return series;
  }

  /**
   * Drops the series' final buckets at its bottom whose every position is a tombstone: the root's `base` moves past
   * them first (lists stop counting them), then their tombstones and summaries go. Returns the buckets dropped.
   */
  async function compact(series: string): Promise<number> {
    const root = await Roots.findById(series).lean<SeriesRootDoc>();
    if (!root) return 0;
    const base = root.base ?? 0;
    const tombs = await Execution.find({ tomb: series }, { seq: 1 }).lean<{ _id: unknown; seq: number }[]>();
    const per = new Map<number, number>();
    for (const t of tombs) per.set(bucketIndexOf(t.seq), (per.get(bucketIndexOf(t.seq)) ?? 0) + 1);
    let next = base;
    while (next < root.filled && per.get(next) === BUCKET_SIZE) next++;
    if (next > base) await atomicUpdateOne(Roots, { _id: series }, { $set: { base: next } });
    // Below the base (also what an interrupted compaction left): tombstones and summaries.
    const gone = tombs.filter((t) => bucketIndexOf(t.seq) < next).map((t) => t._id);
    for (let i = 0; i < gone.length; i += batchSize)
      await Execution.collection.deleteMany({ tomb: series, _id: { $in: gone.slice(i, i + batchSize) } } as never);
    if (next > 0) await Buckets.deleteMany({ series, k: { $lt: next } });
    return next - base;
  }

  const pause = () => (pauseMs > 0 ? new Promise<void>((r) => setTimeout(r, pauseMs).unref()) : Promise.resolve());

  /** Hours remembered because a run of theirs had not ended when they were swept (looked at again each sweep). */
  const MAX_REVISIT = 10_000;

  /** Runs removed per series since its last compaction, in this sweep; and since the last pause. */
  const uncompacted = new Map<string, number>();
  let sinceRest = 0;

  async function compactAll(report: RetentionReport, atLeast: number): Promise<void> {
    for (const [s, n] of uncompacted) {
      if (n < atLeast) continue;
      uncompacted.delete(s);
      report.buckets += await compact(s);
    }
  }

  /** Removes the ended runs of `hour` in batches; returns how many of its runs had not ended. */
  async function sweepHour(hour: number, report: RetentionReport): Promise<number> {
    const cursor = Execution.collection.find<ExecutionDoc>(
      { hour },
      { projection: { series: 1, seq: 1, slot: 1, bucket: 1, fire_key: 1, status: 1 }, batchSize },
    );
    let batch: ExecutionDoc[] = [];
    let unended = 0;
    const flush = async () => {
      const ended = batch.filter((d) => ENDED.includes(d.status));
      unended += batch.length - ended.length;
      batch = [];
      if (ended.length === 0) return;
      for (const [s, n] of await removeBatch(hour, ended)) uncompacted.set(s, (uncompacted.get(s) ?? 0) + n);
      report.removed += ended.length;
      report.batches += 1;
      await keepLease();
      // A series is compacted once two buckets' worth of its runs went (and at the end of the sweep).
      await compactAll(report, 2 * BUCKET_SIZE);
      // The pause follows the work: one per `batchSize` runs removed, however the hours split them.
      sinceRest += ended.length;
      if (sinceRest >= batchSize) {
        sinceRest = 0;
        await pause();
      }
    };
    for await (const d of cursor) {
      batch.push(d);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    report.hours += 1;
    return unended;
  }

  /** One sweep: every hour wholly past the window, at most `maxHours` of them, if this replica gets the lease. */
  async function sweep(): Promise<RetentionReport> {
    const report: RetentionReport = { ran: false, removed: 0, batches: 0, hours: 0, buckets: 0 };
    if (!(await takeLease())) return report;
    report.ran = true;
    try {
      await applyPending();
      const cutoff = deps.clock().getTime() - windowMs;
      const end = Math.floor(cutoff / HOUR_MS); // hours below it end at or before the cutoff
      // Hours passed while a run of theirs had not ended: removed once it has (the outbox ends every run).
      const revisitDoc = await State.findById('revisit').lean<RetentionStateDoc>();
      const before = revisitDoc?.hours ?? [];
      const revisit: number[] = [];
      for (const m of before) if (!stopping && (await sweepHour(m, report)) > 0) revisit.push(m);
      let next = await readCursor(end);
      let saved = next;
      const saveRevisit = async () => {
        if (revisit.length > MAX_REVISIT) {
          deps.logger.warn('execution retention: too many hours with runs not ended; the oldest are forgotten', {
            forgotten: revisit.length - MAX_REVISIT,
          });
          revisit.splice(0, revisit.length - MAX_REVISIT);
        }
        await State.collection.updateOne({ _id: 'revisit' } as never, { $set: { hours: revisit } }, { upsert: true });
      };
      let revisitChanged = before.length !== revisit.length;
      while (next < end && report.hours < maxHours && !stopping) {
        if ((await sweepHour(next, report)) > 0) {
          revisit.push(next);
          revisitChanged = true;
        }
        next += 1;
        // The cursor is written once a day's hours were walked (and at the end): an hour swept again finds nothing.
        if (next - saved >= 24) {
          if (revisitChanged) await saveRevisit();
          revisitChanged = false;
          await saveCursor(next);
          saved = next;
        }
      }
      if (revisitChanged) await saveRevisit();
      if (next !== saved) await saveCursor(next);
      await compactAll(report, 1);
    } finally {
      uncompacted.clear();
      await releaseLease().catch(() => undefined);
    }
    if (report.removed > 0)
      deps.logger.info('execution retention sweep', {
        removed: report.removed,
        batches: report.batches,
        buckets: report.buckets,
        hours: report.hours,
      });
    return report;
  }

  return {
    sweep,
    /** Makes a sweep in progress stop after its current batch. */
    stop(): void {
      stopping = true;
    },
    async init(): Promise<void> {
      await State.init();
      await ensureLookupIndexes(State);
    },
  };
}

export type ExecutionRetention = ReturnType<typeof createExecutionRetention>;

/**
 * The retention sweep as a unit for main.ts: a sweep at start and then `intervalMs` after each one ends (a replica
 * without the lease does nothing). `stop` lets the sweep in progress finish its batch.
 */
export function startExecutionRetention(deps: ExecutionRetentionDeps & { intervalMs: number }): {
  name: string;
  retention: ExecutionRetention;
  stop: () => Promise<void>;
} {
  const retention = createExecutionRetention(deps);
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let ready: Promise<void> | undefined;
  const run = () => {
    ready ??= retention.init().catch((err: unknown) => {
      ready = undefined; // tried again before the next sweep
      throw err;
    });
    current = ready
      .then(() => retention.sweep())
      .catch((err: unknown) =>
        deps.logger.warn('execution retention sweep failed; the next one retries', { err: (err as Error).message }),
      )
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(run, deps.intervalMs);
          timer.unref();
        }
      });
  };
  run();
  return {
    name: 'execution retention',
    retention,
    async stop() {
      stopped = true;
      retention.stop();
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
