import { isDuplicateKeyError, isObjectIdHex, newObjectId, type Connection, type Owner } from '@platform/db';

import { gatherersFor } from './execution.gather';
import { listPage, unfinishedPage, type ExecutionQuery } from './execution.lists';
import { migrateExecutions } from './execution.migrate';
import { executionModel, type ExecutionDoc } from './execution.model';
import { executionDocument, toRecord } from './execution.record';
import { executionTransitions, oid } from './execution.transitions';
import type { ExecutionRecord, NewExecution } from './execution.types';

export type { ExecutionQuery } from './execution.lists';
export { executionDocument, presentExecution } from './execution.record';

/**
 * Executions: the one place that writes them (the scheduler creates, the worker runs). State changes are
 * conditional updates (`findOneAndUpdate` on the state they leave), so a run is claimed and finished exactly once
 * however many workers race.
 */
export function createExecutionRepository(conn: Connection) {
  const Execution = executionModel(conn);
  // Executions that arrive together (concurrent triggers, fires) are inserted together, and fires ask together
  // whether their schedule's run has ended: see createGroupCommit.
  const { unfinished, ...inserts } = gatherersFor(conn);

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
    // A run's state changes: execution.transitions.ts.
    ...executionTransitions(Execution),
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
