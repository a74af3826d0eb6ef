import {
  createGroupCommit,
  insertEach,
  isDuplicateKeyError,
  isObjectIdHex,
  MAJORITY,
  mongoose,
  newObjectId,
  ownerFilter,
  ownerKey,
  perConnection,
  toJsonText,
  type Connection,
  type Owner,
  type UpdateQuery,
} from '@platform/db';

import { listPage, unfinishedPage, type ExecutionQuery } from './execution.lists';
import { migrateExecutions } from './execution.migrate';
import { executionModel, type ExecutionDoc, type ExecutionModel } from './execution.model';
import { toRecord } from './execution.record';
import {
  capUtf8,
  type ExecutionRecord,
  type ExecutionStatus,
  type NewExecution,
  type RunOutcome,
} from './execution.types';

export type { ExecutionQuery } from './execution.lists';
export { presentExecution } from './execution.record';

/**
 * Execution inserts: at most this many in one `insertMany`, and this many of those at once per connection. Batches
 * of up to 64, four at a time, stored 5–8× as many documents a second as one insert each at concurrency 32.
 */
const INSERT_BATCH = 64;
const INSERT_PARALLEL = 4;
/**
 * How long an insert of a fire waits for company: fires come due together by the hundred (every-minute schedules)
 * and are handled a few at a time as their jobs arrive, so a short wait turns their inserts into full batches.
 * Triggers do not wait: a sender waits for their insert.
 */
const FIRE_INSERT_GATHER_MS = 10;

/**
 * How long a fire's question "is a run of this schedule unfinished?" waits for company: the fires that come due
 * together ask together, one query per owner (`schedule_id $in`), instead of one each. A question waits at most this
 * long, then the answer is read; an answer is never reused by a later question.
 */
const UNFINISHED_GATHER_MS = 10;
/** Schedules asked about in one query. */
const UNFINISHED_BATCH = 256;

const NOT_ENDED: ExecutionStatus[] = ['queued', 'running'];

/**
 * One set of group commits per connection, shared by every repository on it (the scheduler makes several), so the
 * inserts and questions of all of them are gathered together.
 */
const gatherersFor = perConnection((conn) => {
  const Execution = executionModel(conn);
  // A batch cut off by a lost connection (a primary election) is sent once more; a document the first attempt
  // stored is then a duplicate of its own `_id` and counts as stored (libs/db retryWriteOnce). Majority, as every
  // write of a run.
  const write = insertEach(Execution, { retry: true, writeConcern: MAJORITY });
  return {
    now: createGroupCommit(write, { maxBatch: INSERT_BATCH, maxParallel: INSERT_PARALLEL }),
    gathered: createGroupCommit(write, {
      maxBatch: INSERT_BATCH,
      maxParallel: INSERT_PARALLEL,
      gatherMs: FIRE_INSERT_GATHER_MS,
    }),
    unfinished: createGroupCommit(unfinishedAnswers(Execution), {
      maxBatch: UNFINISHED_BATCH,
      maxParallel: 2,
      gatherMs: UNFINISHED_GATHER_MS,
    }),
  };
});

/** Fires asking whether their schedule has a run not ended, answered together: one query per owner. */
function unfinishedAnswers(Execution: ExecutionModel) {
  return async (asks: { owner: Owner; scheduleId: string }[]): Promise<boolean[]> => {
    const byOwner = new Map<string, { owner: Owner; ids: Set<string>; busy: Set<string> }>();
    for (const a of asks) {
      const key = ownerKey(a.owner);
      const entry = byOwner.get(key) ?? { owner: a.owner, ids: new Set<string>(), busy: new Set<string>() };
      entry.ids.add(a.scheduleId);
      byOwner.set(key, entry);
    }
    await Promise.all(
      [...byOwner.values()].map(async ({ owner, ids, busy }) => {
        const notEnded = { ...ownerFilter(owner), status: { $in: NOT_ENDED } };
        // Bounded: a schedule with many runs waiting (run-now, or `allow` before) cannot make the answer large.
        const limit = ids.size * 2 + 8;
        const found = await Execution.find({ schedule_id: { $in: [...ids] }, ...notEnded }, { _id: 0, schedule_id: 1 })
          .limit(limit)
          .lean<{ schedule_id: string }[]>();
        for (const d of found) busy.add(d.schedule_id);
        // A full answer may have left schedules out: those not seen are asked alone.
        if (found.length === limit)
          await Promise.all(
            [...ids]
              .filter((id) => !busy.has(id))
              .map(async (id) => {
                if ((await Execution.exists({ schedule_id: id, ...notEnded })) !== null) busy.add(id);
              }),
          );
      }),
    );
    return asks.map((a) => byOwner.get(ownerKey(a.owner))!.busy.has(a.scheduleId));
  };
}

/**
 * A new execution's document as the schema stores it: every field typed and set (its default where the input has
 * none), so that it is inserted as it is. Building a mongoose document to cast and default it cost several percent of
 * the scheduler's CPU per trigger; a test holds this equal to what the schema makes of the same input.
 */
export function executionDocument(input: NewExecution, id: string, now: Date): ExecutionDoc {
  const skipped = input.status === 'skipped';
  const doc: ExecutionDoc = {
    _id: new mongoose.Types.ObjectId(id),
    kind: input.kind,
    webhook_id: input.webhook_id ?? null,
    schedule_id: input.schedule_id ?? null,
    agent_id: input.agent_id ?? null,
    user_id: input.user_id,
    org_id: input.org_id,
    session_id: `execution-${id}`,
    status: input.status ?? 'queued',
    success: null,
    attempt: 0,
    max_attempts: input.max_attempts,
    scheduled_for: input.scheduled_for ?? null,
    triggered_at: now,
    started_at: null,
    finished_at: skipped ? now : null,
    duration_ms: skipped ? 0 : null,
    // A sender's JSON as sent ($-keys, dotted keys and nested arrays included): as JSON text.
    payload_json: toJsonText(input.payload),
    response_status: null,
    response_output: null,
    error_message: input.error_message ?? null,
    replay_of: input.replay_of ?? null,
    fire_key: input.fire_key ?? id,
    retry_delay_ms: input.retry_delay_ms ?? null,
    recoveries: 0,
  };
  if (input.callback) doc.cb = { url: input.callback.url, secret: input.callback.secret };
  return doc;
}

/**
 * Executions: the one place that writes them (the scheduler creates, the worker runs). State changes are
 * conditional updates (`findOneAndUpdate` on the state they leave), so a run is claimed and finished exactly once
 * however many workers race.
 */
export function createExecutionRepository(conn: Connection) {
  const Execution = executionModel(conn);
  const oid = (id: string) => new mongoose.Types.ObjectId(id);
  // Executions that arrive together (concurrent triggers, fires) are inserted together, and fires ask together
  // whether their schedule's run has ended: see createGroupCommit.
  const { unfinished, ...inserts } = gatherersFor(conn);

  // A run's state changes go to the collection as they are: their values are typed here already (ids as ObjectIds,
  // dates as Dates), and mongoose's cast of filter and change was a few percent of a worker's CPU per run. Majority,
  // as the schema asks of every write of an execution.
  const update = async (filter: Record<string, unknown>, change: UpdateQuery<ExecutionDoc>) => {
    const d = await Execution.collection.findOneAndUpdate(filter, change, {
      returnDocument: 'after',
      writeConcern: MAJORITY,
    });
    return d ? toRecord(d as unknown as ExecutionDoc) : null;
  };

  /** Stores a new execution (`queued` unless said otherwise); its session id is derived from its own id. */
  async function create(input: NewExecution, now: Date, gather = false): Promise<ExecutionRecord> {
    const id = input.id !== undefined && isObjectIdHex(input.id) ? input.id : newObjectId();
    const doc = executionDocument(input, id, now);
    // Written by the group commit, with the others that arrive meanwhile.
    await (gather ? inserts.gathered : inserts.now).add(doc);
    return toRecord(doc);
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
    /**
     * True while a run of the schedule has not ended (queued, waiting for a retry, or running). Asked by fires, which
     * come due together: the questions of a few milliseconds are answered by one query per owner.
     */
    hasUnfinishedRun: (owner: Owner, scheduleId: string): Promise<boolean> =>
      unfinished.add({ owner: { user_id: owner.user_id, org_id: owner.org_id }, scheduleId }),
    async get(id: string): Promise<ExecutionRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Execution.findById(id).lean<ExecutionDoc>();
      return d ? toRecord(d) : null;
    },
    async delete(id: string): Promise<void> {
      if (isObjectIdHex(id)) await Execution.deleteOne({ _id: oid(id) });
    },
    /** Runs not ended, for the recovery rule (run-recovery.ts), oldest first, `limit` at a time. */
    unfinished: (q: { queuedBefore: Date; runningBefore: Date; limit: number; cursor?: string }) =>
      unfinishedPage(Execution, q),
    /** Records a recovery of a run that has not ended (back to queued, recoveries + 1); false when it ended or another sweep took it. */
    async markRecovered(id: string, recoveries: number): Promise<boolean> {
      const filter = {
        _id: oid(id),
        status: { $in: NOT_ENDED },
        recoveries: recoveries === 0 ? { $in: [0, null] } : recoveries,
      };
      return (await update(filter, { $set: { status: 'queued' }, $inc: { recoveries: 1 } })) !== null;
    },
    /**
     * Starts an attempt: queued (or running, when a dead worker's job is redelivered) → running, attempt + 1, held by
     * `claimant` (the job's delivery to this worker). The same claimant's claim again (its reply was lost) is the
     * attempt it already started, not another one. With `resumeAttempt`, an attempt that a store outage interrupted
     * before it ran is resumed instead (when the run is still at it). Null when the execution has already ended.
     */
    async claim(
      id: string,
      now: Date,
      { claimant, resumeAttempt }: { claimant: string; resumeAttempt?: number },
    ): Promise<ExecutionRecord | null> {
      if (!isObjectIdHex(id)) return null;
      if (resumeAttempt !== undefined) {
        // The same attempt again, after a store outage interrupted it before it could run: no attempt is spent.
        const resumed = await update(
          { _id: oid(id), status: 'running', attempt: resumeAttempt },
          { $set: { started_at: now, claim: claimant } },
        );
        if (resumed) return resumed;
      }
      // Queued, or running under another claimant (a job redelivered after its worker died, or put back on its queue).
      const claimed = await update(
        { _id: oid(id), $or: [{ status: 'queued' }, { status: 'running', claim: { $ne: claimant } }] },
        { $set: { status: 'running', started_at: now, claim: claimant }, $inc: { attempt: 1 } },
      );
      if (claimed) return claimed;
      const held = await Execution.findById(id).lean<ExecutionDoc>();
      return held?.status === 'running' && held.claim === claimant ? toRecord(held) : null;
    },
    /** Ends attempt `attempt`; null when another attempt has taken over or the execution already ended. */
    finish: (id: string, attempt: number, outcome: RunOutcome, now: Date, startedAt: Date) =>
      update(
        { _id: oid(id), status: 'running', attempt },
        {
          $set: {
            status: outcome.success ? 'succeeded' : 'failed',
            success: outcome.success,
            finished_at: now,
            duration_ms: Math.max(0, now.getTime() - startedAt.getTime()),
            response_status: outcome.response_status,
            response_output: outcome.response_output === null ? null : capUtf8(outcome.response_output),
            error_message: outcome.error_message === null ? null : capUtf8(outcome.error_message, 4096),
          },
        },
      ),
    /** Records the completion callback's delivery so far (the worker, after each attempt). */
    async recordDelivery(id: string, delivery: NonNullable<ExecutionDoc['delivery']>): Promise<void> {
      if (isObjectIdHex(id)) await Execution.updateOne({ _id: oid(id) }, { $set: { delivery } });
    },
    /** Records a failed attempt that will be retried: back to queued, keeping the error for the logs. */
    async retryLater(id: string, attempt: number, outcome: RunOutcome): Promise<boolean> {
      const change = {
        $set: { status: 'queued', response_status: outcome.response_status, error_message: outcome.error_message },
      };
      return (await update({ _id: oid(id), status: 'running', attempt }, change)) !== null;
    },
    /** A running execution whose job was given up goes back to queued, attempts unchanged (for the recovery rule). */
    async release(id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      return (await update({ _id: oid(id), status: 'running' }, { $set: { status: 'queued' } })) !== null;
    },
    /** Fails an execution that has not ended (it cannot be recovered); null when it had already ended. */
    abandon: (id: string, reason: string, now: Date) =>
      update(
        { _id: oid(id), status: { $in: NOT_ENDED } },
        { $set: { status: 'failed', success: false, finished_at: now, error_message: capUtf8(reason, 4096) } },
      ),
    /** An owner's executions, newest first, with the total of all matches. */
    list: (owner: Owner, q: ExecutionQuery) => listPage(Execution, owner, q),
    /** Creates the collection and its indexes, after bringing a store written by earlier versions up to date. */
    async init(): Promise<void> {
      await migrateExecutions(conn);
      await Execution.init();
    },
  };
}

export type ExecutionRepository = ReturnType<typeof createExecutionRepository>;
