import { isObjectIdHex, MAJORITY, mongoose, type UpdateQuery } from '@platform/db';

import type { ExecutionDoc, ExecutionModel } from './execution.model';
import { toRecord } from './execution.record';
import { capUtf8, type ExecutionRecord, type ExecutionStatus, type RunOutcome } from './execution.types';

export const NOT_ENDED: ExecutionStatus[] = ['queued', 'running'];

export const oid = (id: string) => new mongoose.Types.ObjectId(id);

/** The state changes of a run (recovery, claim, finish, retry, release, abandon), part of the execution repository. */
export function executionTransitions(Execution: ExecutionModel) {
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

  return {
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
  };
}
