import {
  createGroupCommit,
  insertEach,
  MAJORITY,
  ownerFilter,
  ownerKey,
  perConnection,
  type Owner,
} from '@platform/db';

import { executionModel, type ExecutionModel } from './execution.model';
import { NOT_ENDED } from './execution.transitions';

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

/**
 * One set of group commits per connection, shared by every repository on it (the scheduler makes several), so the
 * inserts and questions of all of them are gathered together.
 */
export const gatherersFor = perConnection((conn) => {
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
