import {
  atomicUpdateEach,
  atomicUpdateOne,
  createGroupCommit,
  ensureLookupIndexes,
  fromJsonText,
  insertEach,
  isDuplicateKeyError,
  iso,
  isObjectIdHex,
  MAJORITY,
  newObjectId,
  prepareAtomicUpdates,
  releaseLease,
  toJsonText,
  updateUnderLease,
  type Connection,
  type GroupCommit,
  type Model,
  type Owner,
  type UpdateQuery,
} from '@platform/db';

import { runQueueOf } from './agent-runs.queue';
import { fillerFor } from './execution.filler';
import { executionModel, retentionHourOf, type ExecutionDoc } from './execution.model';
import { createSeriesReader } from './execution.pages';
import { dayKeysOf, readRecent } from './execution.recent';
import { BUCKET_SIZE, bucketIndexOf, bucketKey, positionAllocatorFor, seriesKeyOf, slotKey } from './execution.series';
import { bucketSummaryModel, markTombstones, seriesRootModel } from './execution.summaries';
import {
  capUtf8,
  EXECUTION_STATUSES,
  type ExecutionKind,
  type ExecutionRecord,
  type ExecutionStatus,
  type NewExecution,
  type RunOutcome,
} from './execution.types';
import type { UnfinishedRun } from './run-recovery';

function toRecord(d: ExecutionDoc): ExecutionRecord {
  return {
    id: d._id.toHexString(),
    kind: d.kind,
    webhook_id: d.webhook_id ?? null,
    schedule_id: d.schedule_id ?? null,
    agent_id: d.agent_id ?? null,
    user_id: d.user_id,
    org_id: d.org_id,
    session_id: d.session_id ?? null,
    status: d.status,
    success: d.success ?? null,
    attempt: d.attempt,
    max_attempts: d.max_attempts,
    scheduled_for: iso(d.scheduled_for),
    triggered_at: d.triggered_at.toISOString(),
    started_at: iso(d.started_at),
    finished_at: iso(d.finished_at),
    duration_ms: d.duration_ms ?? null,
    payload: fromJsonText(d.payload_json, d.payload),
    response_status: d.response_status ?? null,
    response_output: d.response_output ?? null,
    error_message: d.error_message ?? null,
    replay_of: d.replay_of ?? null,
    fire_key: d.fire_key ?? d._id.toHexString(),
    retry_delay_ms: d.retry_delay_ms ?? null,
    delivery: d.delivery
      ? {
          attempts: d.delivery.attempts,
          last_status: d.delivery.last_status,
          last_error: d.delivery.last_error,
          delivered_at: iso(d.delivery.delivered_at),
          next_attempt_at: iso(d.delivery.next_attempt_at),
        }
      : d.cb
        ? { attempts: 0, last_status: null, last_error: null, delivered_at: null, next_attempt_at: null }
        : null,
    ...(d.ib ? { batch: d.ib } : {}),
    ...(d.cb ? { callback: d.cb } : {}),
  };
}

/**
 * A list: one webhook's or schedule's runs (`webhook_id` / `schedule_id`; the caller has checked it owns it), or an
 * owner's recent runs of some `kinds` since `since` (optionally of one agent).
 */
export interface ExecutionQuery {
  webhook_id?: string;
  schedule_id?: string;
  agent_id?: string;
  kinds?: ExecutionKind[];
  success?: boolean;
  /** Any of these statuses (with `success`: both must hold). */
  statuses?: ExecutionStatus[];
  since?: Date;
  /** `triggered_at` ≥ from (inclusive) and < to (exclusive). */
  from?: Date;
  to?: Date;
  skip: number;
  limit: number;
}

/** The statuses a query wants (`success` true is `succeeded`, false is `failed`); undefined: all. */
function wantedStatuses(q: ExecutionQuery): ExecutionStatus[] | undefined {
  let wanted = q.statuses ? EXECUTION_STATUSES.filter((s) => q.statuses?.includes(s)) : undefined;
  if (q.success !== undefined) {
    const bySuccess: ExecutionStatus = q.success ? 'succeeded' : 'failed';
    wanted = (wanted ?? [bySuccess]).filter((s) => s === bySuccess);
  }
  return wanted;
}

/**
 * Execution inserts: at most this many in one `insertMany`, and this many of those at once per connection. Measured
 * on FerretDB with the executions' indexes at concurrency 32 (libs/db README): batches of up to 64, four at a time,
 * stored 5–8× as many documents a second as one insert each.
 */
const INSERT_BATCH = 64;
const INSERT_PARALLEL = 4;

/**
 * How long an insert of a fire waits for company: fires come due together by the hundred (every-minute schedules)
 * and are handled a few at a time as their jobs arrive, so a short wait turns their inserts into full batches.
 * Triggers do not wait: a sender waits for their insert.
 */
const FIRE_INSERT_GATHER_MS = 10;

interface GroupInserts {
  now: GroupCommit<object>;
  gathered: GroupCommit<object>;
}

const groupInserts = new WeakMap<Connection, GroupInserts>();

/** One group commit per connection, shared by every repository on it (the scheduler makes several), like positions. */
function insertsFor(conn: Connection, Execution: Model<ExecutionDoc>): GroupInserts {
  let g = groupInserts.get(conn);
  if (!g) {
    // A batch cut off by a lost connection (a primary election) is sent once more; a document the first attempt
    // stored is then a duplicate of its own `_id` and counts as stored (libs/db retryWriteOnce). Majority, as every
    // write of a run.
    const insert = insertEach(Execution, { retry: true, writeConcern: MAJORITY });
    // Each document names its insert (the batch's first id), the key its runs' claims are read and written by.
    const write = (docs: object[]) => {
      const ib = String((docs[0] as { _id: unknown })._id);
      for (const d of docs) (d as { ib?: string }).ib = ib;
      return insert(docs);
    };
    g = {
      now: createGroupCommit(write, { maxBatch: INSERT_BATCH, maxParallel: INSERT_PARALLEL }),
      gathered: createGroupCommit(write, {
        maxBatch: INSERT_BATCH,
        maxParallel: INSERT_PARALLEL,
        gatherMs: FIRE_INSERT_GATHER_MS,
      }),
    };
    groupInserts.set(conn, g);
  }
  return g;
}

/** A claim of a run, as the run path's group commit takes it. */
interface ClaimWrite {
  id: string;
  now: Date;
  /** The execution's insert batch, when the job knows it. */
  batch?: string;
}

/**
 * Run claims of a connection, and the leases this process holds on the runs it claimed (FerretDB: the claim of the
 * revision the claim made, kept until the run's outcome is written; see atomicUpdateEach's `hold`).
 */
interface RunWrites {
  claims: GroupCommit<ClaimWrite, ExecutionDoc | null>;
  /** Per execution: the leased revision, and the attempt the claim that took it started. */
  leases: Map<string, { rev: number; attempt: number }>;
}

/**
 * Claims at most this many runs in one batch, this many batches at once per connection, a batch waiting this long
 * for company: a worker takes its jobs one by one, and a claim precedes a call that takes far longer than that.
 */
const CLAIM_BATCH = 64;
const CLAIM_PARALLEL = 1;
const CLAIM_GATHER_MS = 20;
/** Rounds a claim tries a contended run before its job is left to wait (AtomicConflictError). */
const CLAIM_ROUNDS = 5;
/** Leases remembered; past it the oldest is forgotten (its run's finish then claims the document as usual). */
const MAX_LEASES = 10_000;

const runWrites = new WeakMap<Connection, RunWrites>();

/**
 * The run claims of a connection: claims that arrive together are written together, one conditional update per
 * insert batch (their start time is the batch's latest, a few milliseconds at most after each job began), each
 * atomic per execution as `atomicUpdateOne` is. A run never updated before is tried at revision 0 without a read.
 */
function runWritesFor(conn: Connection, Execution: Model<ExecutionDoc>, byId: (id: string) => unknown): RunWrites {
  let w = runWrites.get(conn);
  if (!w) {
    const leases: RunWrites['leases'] = new Map();
    const claims = createGroupCommit<ClaimWrite, ExecutionDoc | null>(
      async (items) => {
        const now = new Date(Math.max(...items.map((i) => i.now.getTime())));
        const docs = await atomicUpdateEach(
          Execution,
          items.map((i) => ({
            id: byId(i.id),
            near: i.batch ? { ib: i.batch } : undefined,
            rev: 0,
            filter: { status: { $in: ['queued', 'running'] } },
            update: { $set: { status: 'running', started_at: now }, $inc: { attempt: 1 } },
          })),
          // A run whose document another writer holds (a dead worker's lease, until it is stale) is not waited for
          // here, holding up the batch: its job waits and comes back (the worker's store wait).
          { hold: true, attempts: CLAIM_ROUNDS },
        );
        docs.forEach((d, k) => {
          if (d === null || d instanceof Error) return;
          if (leases.size >= MAX_LEASES) leases.delete(leases.keys().next().value!);
          leases.set(items[k]!.id, { rev: (d as { _rev?: number })._rev ?? 0, attempt: d.attempt });
        });
        return docs;
      },
      { maxBatch: CLAIM_BATCH, maxParallel: CLAIM_PARALLEL, gatherMs: CLAIM_GATHER_MS },
    );
    w = { claims, leases };
    runWrites.set(conn, w);
  }
  return w;
}

/** Attempts at a free position before giving up (each failed one means another process took it). */
const POSITION_ATTEMPTS = 50;

/**
 * Executions: the one place that writes them (the scheduler creates, the worker runs). State changes are
 * conditional atomic updates, so a run is claimed and finished exactly once however many workers race.
 */
export function createExecutionRepository(conn: Connection) {
  const Execution = executionModel(conn);
  const Roots = seriesRootModel(conn);
  const Buckets = bucketSummaryModel(conn);
  const positions = positionAllocatorFor(conn, Execution, Roots);
  const filler = fillerFor(Execution, Roots, Buckets);
  const readSeries = createSeriesReader({ Execution, Roots, Buckets, filler });
  const byId = (id: string) => new Execution({ _id: id })._id;
  // Executions that arrive together (concurrent triggers, fires) are inserted together: see createGroupCommit.
  const inserts = insertsFor(conn, Execution);
  // Claims that arrive together are written together too; the run's outcome is then written under its lease.
  const runs = runWritesFor(conn, Execution, byId);

  /**
   * An update of attempt `attempt` of a run, while `running`: under this process's lease when it holds one for that
   * attempt (one write); null when its lease is for a later attempt (this one was taken over); else atomically.
   */
  async function underLease(
    id: string,
    attempt: number,
    update: UpdateQuery<ExecutionDoc>,
  ): Promise<ExecutionDoc | null> {
    const filter = { status: 'running', attempt };
    const lease = runs.leases.get(id);
    if (lease === undefined) return atomicUpdateOne(Execution, { ...filter, _id: byId(id) }, update);
    if (lease.attempt !== attempt) return null;
    runs.leases.delete(id);
    return updateUnderLease(Execution, byId(id), lease.rev, filter, update);
  }

  /** Gives up this process's lease on a run before updating it another way. */
  async function dropLease(id: string): Promise<void> {
    const lease = runs.leases.get(id);
    if (lease === undefined) return;
    runs.leases.delete(id);
    await releaseLease(Execution, byId(id), lease.rev);
  }

  /**
   * Stores a new execution (`queued` unless said otherwise); its session id is derived from its own id. It takes
   * the next position of its series (see execution.series.ts): a duplicate key on `slot` means another process
   * took that position, so the next one is tried; one on `fire_key` means the fire already ran.
   */
  async function create(input: NewExecution, now: Date, gather = false): Promise<ExecutionRecord> {
    const id = input.id !== undefined && isObjectIdHex(input.id) ? input.id : newObjectId();
    const skipped = input.status === 'skipped';
    const status = input.status ?? 'queued';
    const series = seriesKeyOf(input, input.webhook_id ?? input.schedule_id ?? id);
    const { payload, id: _given, callback, ...fields } = input;
    for (let attempt = 0; ; attempt++) {
      const seq = await positions.take(series);
      // Cast and defaulted by the schema here; written by the group commit, with the others that arrive meanwhile.
      const doc = new Execution({
        ...fields,
        // A sender's JSON as sent ($-keys, dotted keys and nested arrays included): as JSON text.
        payload_json: toJsonText(payload),
        _id: id,
        fire_key: input.fire_key ?? id,
        session_id: `execution-${id}`,
        status,
        attempt: 0,
        triggered_at: now,
        ...(skipped ? { finished_at: now, duration_ms: 0 } : {}),
        series,
        seq,
        slot: slotKey(series, seq),
        bucket: bucketKey(series, bucketIndexOf(seq)),
        day_keys: dayKeysOf(input, input.kind, input.agent_id, now),
        hour: retentionHourOf(now),
        ...(callback ? { cb: callback } : {}),
      }).toObject<ExecutionDoc>();
      try {
        await (gather ? inserts.gathered : inserts.now).add(doc);
        positions.stored(series);
        // A new bucket makes the one two below it ready to fill.
        if (seq % BUCKET_SIZE === 0 && seq >= 2 * BUCKET_SIZE) filler.kick(series);
        return toRecord(doc);
      } catch (err) {
        if (!isDuplicateKeyError(err)) {
          positions.release(series, seq);
          throw err;
        }
        if (input.fire_key !== undefined && (await Execution.exists({ fire_key: input.fire_key })) !== null) {
          positions.release(series, seq); // the fire ran already; the position is still free
          throw err;
        }
        if (attempt >= POSITION_ATTEMPTS) throw err;
        positions.collided(series, seq);
      }
    }
  }

  return {
    create,
    /** Like `create`, but null when an execution with the same `fire_key` exists: that fire already ran. */
    async createOnce(input: NewExecution & { fire_key: string }, now: Date): Promise<ExecutionRecord | null> {
      try {
        // A fire's insert waits a few milliseconds for the other fires that came due with it.
        return await create(input, now, true);
      } catch (err) {
        if (isDuplicateKeyError(err)) return null;
        throw err;
      }
    },
    async getByFireKey(fireKey: string): Promise<ExecutionRecord | null> {
      const d = await Execution.findOne({ fire_key: fireKey }).lean<ExecutionDoc>();
      return d ? toRecord(d) : null;
    },
    /** True while a run of the schedule has not ended (queued, waiting for a retry, or running). */
    async hasUnfinishedRun(scheduleId: string): Promise<boolean> {
      const found = await Promise.all(
        (['queued', 'running'] as const).map((status) => Execution.exists({ schedule_id: scheduleId, status })),
      );
      return found.some((f) => f !== null);
    },
    async get(id: string): Promise<ExecutionRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Execution.findById(id).lean<ExecutionDoc>();
      return d && !d.tomb ? toRecord(d) : null;
    },
    /**
     * Removes an execution. Its position stays taken by a tombstone, so that the counts of its bucket (which may
     * already be final) stay exact.
     */
    async delete(id: string): Promise<void> {
      const d = await Execution.findById(id).lean<ExecutionDoc>();
      if (!d || d.tomb) return;
      if (d.series === undefined || d.seq === undefined) {
        await Execution.deleteOne({ _id: d._id });
        return;
      }
      await markTombstones(Roots, d.series);
      const tomb = {
        _id: d._id,
        series: d.series,
        seq: d.seq,
        slot: d.slot,
        bucket: d.bucket,
        fire_key: d.fire_key,
        tomb: d.series,
      };
      await Execution.collection.replaceOne({ _id: d._id }, tomb, { writeConcern: MAJORITY });
    },
    /**
     * Runs not ended, for the recovery rule (run-recovery.ts): queued since before `queuedBefore`, then running since
     * before `runningBefore`, oldest first, `limit` at a time. Each status is one equality (served by an index on
     * FerretDB too); the time bound is applied to what it returns.
     */
    async unfinished(q: {
      queuedBefore: Date;
      runningBefore: Date;
      limit: number;
      cursor?: string;
    }): Promise<{ runs: UnfinishedRun[]; next?: string }> {
      const [fromStatus = 'queued', fromMs = '0', afterId = ''] = (q.cursor ?? '').split(':');
      const runs: UnfinishedRun[] = [];
      for (const status of fromStatus === 'running' ? (['running'] as const) : (['queued', 'running'] as const)) {
        const field = status === 'queued' ? 'triggered_at' : 'started_at';
        const resume = status === fromStatus ? Number(fromMs) : 0;
        const window = {
          $lt: status === 'queued' ? q.queuedBefore : q.runningBefore,
          ...(resume ? { $gte: new Date(resume) } : {}),
        };
        const docs = await Execution.find(
          { status, [field]: window },
          { kind: 1, recoveries: 1, triggered_at: 1, started_at: 1 },
        )
          .sort({ [field]: 1, _id: 1 })
          .limit(q.limit + 50)
          .lean<ExecutionDoc[]>();
        for (const d of docs) {
          const at = (status === 'queued' ? d.triggered_at : (d.started_at ?? d.triggered_at)).getTime();
          const id = d._id.toHexString();
          if (at === resume && id <= afterId) continue; // seen on the previous page
          runs.push({ id, status, recoveries: d.recoveries ?? 0, queue: runQueueOf(d.kind) });
          if (runs.length === q.limit) return { runs, next: `${status}:${at}:${id}` };
        }
      }
      return { runs };
    },
    /** Records a recovery of a run that has not ended (back to queued, recoveries + 1); false when it ended or another sweep took it. */
    async markRecovered(id: string, recoveries: number): Promise<boolean> {
      await dropLease(id);
      const d = await atomicUpdateOne(
        Execution,
        {
          _id: byId(id),
          status: { $in: ['queued', 'running'] },
          recoveries: recoveries === 0 ? { $in: [0, null] } : recoveries,
        },
        { $set: { status: 'queued' }, $inc: { recoveries: 1 } },
      );
      return d !== null;
    },
    /**
     * Starts an attempt: queued (or running, when a dead worker's job is redelivered) → running, attempt + 1.
     * With `resumeAttempt`, an attempt that a store outage interrupted before it ran is resumed instead (when the run
     * is still at it). Null when the execution has already ended.
     */
    async claim(
      id: string,
      now: Date,
      resumeAttempt?: number,
      job: { batch?: string; redelivered?: boolean } = {},
    ): Promise<ExecutionRecord | null> {
      if (!isObjectIdHex(id)) return null;
      await dropLease(id);
      if (job.redelivered) {
        // The queue gave the job to this worker because its holder stopped renewing it (died): that holder's lease
        // on the run, if any, is void. Its late write, if it was alive after all, finds the run moved on.
        const d = await Execution.findById(id, { _rev: 1 }).lean<{ _rev?: number }>();
        if (d?._rev) await releaseLease(Execution, byId(id), d._rev);
      }
      if (resumeAttempt !== undefined) {
        // The same attempt again, after a store outage interrupted it before it could run: no attempt is spent.
        const resumed = await atomicUpdateOne(
          Execution,
          { _id: byId(id), status: 'running', attempt: resumeAttempt },
          { $set: { started_at: now } },
        );
        if (resumed) return toRecord(resumed);
      }
      const d = await runs.claims.add({ id, now, batch: job.batch });
      return d ? toRecord(d) : null;
    },
    /** Gives up this process's lease on a run it claimed but will not update now (the attempt was interrupted). */
    unlease: (id: string): Promise<void> => dropLease(id),
    /** Ends attempt `attempt`; null when another attempt has taken over or the execution already ended. */
    async finish(
      id: string,
      attempt: number,
      outcome: RunOutcome,
      now: Date,
      startedAt: Date,
    ): Promise<ExecutionRecord | null> {
      const d = await underLease(id, attempt, {
        $set: {
          status: outcome.success ? 'succeeded' : 'failed',
          success: outcome.success,
          finished_at: now,
          duration_ms: Math.max(0, now.getTime() - startedAt.getTime()),
          response_status: outcome.response_status,
          response_output: outcome.response_output === null ? null : capUtf8(outcome.response_output),
          error_message: outcome.error_message === null ? null : capUtf8(outcome.error_message, 4096),
        },
      });
      return d ? toRecord(d) : null;
    },
    /** Records the completion callback's delivery so far (the worker, after each attempt). */
    async recordDelivery(id: string, delivery: NonNullable<ExecutionDoc['delivery']>): Promise<void> {
      if (!isObjectIdHex(id)) return;
      await Execution.updateOne({ _id: byId(id) }, { $set: { delivery } });
    },
    /** Records a failed attempt that will be retried: back to queued, keeping the error for the logs. */
    async retryLater(id: string, attempt: number, outcome: RunOutcome): Promise<boolean> {
      const d = await underLease(id, attempt, {
        $set: { status: 'queued', response_status: outcome.response_status, error_message: outcome.error_message },
      });
      return d !== null;
    },
    /** A running execution whose job was given up goes back to queued, attempts unchanged (for the recovery rule). */
    async release(id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      await dropLease(id);
      return (
        (await atomicUpdateOne(Execution, { _id: byId(id), status: 'running' }, { $set: { status: 'queued' } })) !==
        null
      );
    },
    /** Fails an execution that has not ended (it cannot be recovered); null when it had already ended. */
    async abandon(id: string, reason: string, now: Date): Promise<ExecutionRecord | null> {
      await dropLease(id);
      const d = await atomicUpdateOne(
        Execution,
        { _id: byId(id), status: { $in: ['queued', 'running'] } },
        { $set: { status: 'failed', success: false, finished_at: now, error_message: capUtf8(reason, 4096) } },
      );
      return d ? toRecord(d) : null;
    },
    /** An owner's executions, newest first, with the total of all matches. */
    async list(owner: Owner, q: ExecutionQuery): Promise<{ items: ExecutionRecord[]; total: number }> {
      const statuses = wantedStatuses(q);
      const parent = q.webhook_id ?? q.schedule_id;
      if (parent !== undefined) {
        const page = await readSeries(
          seriesKeyOf(owner, parent),
          { statuses, from: q.from, to: q.to },
          q.skip,
          q.limit,
        );
        return { items: page.items.map(toRecord), total: page.total };
      }
      const since = q.since ?? new Date(0);
      const from = q.from && q.from > since ? q.from : since;
      const page = await readRecent(
        Execution,
        owner,
        { kinds: q.kinds ?? [], agent_id: q.agent_id, statuses, from, to: q.to },
        new Date(),
        q.skip,
        q.limit,
      );
      return { items: page.items.map(toRecord), total: page.total };
    },
    /** Fills every ready bucket of a webhook's or schedule's runs now (tests, benchmarks; lists and inserts start it in the background). */
    fill: (owner: Owner, parent: string) => filler.fill(seriesKeyOf(owner, parent)),
    /** Waits for background bucket fills (shutdown, tests). */
    settle: () => filler.settle(),
    async init(): Promise<void> {
      await Promise.all([Execution.init(), Roots.init(), Buckets.init()]);
      await Promise.all([Execution, Roots, Buckets].map((m) => ensureLookupIndexes(m)));
      await prepareAtomicUpdates(conn);
    },
  };
}

export type ExecutionRepository = ReturnType<typeof createExecutionRepository>;

/** The public Execution object: the record without server-side fields. */
export function presentExecution(r: ExecutionRecord) {
  const { org_id: _org, fire_key: _key, retry_delay_ms: _delay, batch: _batch, callback: _callback, ...pub } = r;
  return pub;
}
