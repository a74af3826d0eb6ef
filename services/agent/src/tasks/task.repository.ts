import { fromJsonText, iso, ownerFilter, toJsonText, type Connection } from '@platform/db';

import { taskModel, type TaskDoc } from './task.model';
import type { ChatInput, Owner, TaskRecord, TaskView } from './task.types';

function toRecord(d: TaskDoc): TaskRecord {
  const view: TaskView = {
    task_id: d._id,
    status: d.status,
    created_at: iso(d.created_at)!,
    updated_at: iso(d.updated_at)!,
  };
  if (d.result_json) view.result = fromJsonText(d.result_json) as TaskView['result'];
  if (d.error) view.error = d.error;
  return {
    ...view,
    user_id: d.user_id,
    org_id: d.org_id,
    input: fromJsonText(d.input_json) as ChatInput,
    attempts: d.attempts ?? 0,
    expires_at: iso(d.expires_at)!,
  };
}

/**
 * Inference tasks in MongoDB, scoped to their owner; expired tasks are as good as gone (the TTL index removes them
 * within a minute or so). Each change of state is one conditional update of the task, by its id.
 */
export function createTaskRepository(conn: Connection) {
  const Task = taskModel(conn);
  const live = (owner: Owner, id: string, now: Date) => ({ _id: id, ...ownerFilter(owner), expires_at: { $gt: now } });
  /** The task while it has not ended, updated with `update`: the task after it, or null. */
  const unfinished = async (owner: Owner, id: string, now: Date, update: Record<string, unknown>) => {
    const d = await Task.findOneAndUpdate({ ...live(owner, id, now), status: { $in: ['queued', 'running'] } }, update, {
      returnDocument: 'after',
    }).lean();
    return d ? toRecord(d) : null;
  };
  const ended = (id: string, owner: Owner, now: Date, set: Partial<TaskDoc>) =>
    unfinished(owner, id, now, { $set: { ...set, updated_at: now } });
  return {
    async create(owner: Owner, id: string, input: ChatInput, now: Date, keepMs: number): Promise<TaskRecord> {
      const doc: TaskDoc = {
        _id: id,
        ...ownerFilter(owner),
        status: 'queued',
        input_json: toJsonText(input)!,
        result_json: null,
        error: null,
        attempts: 0,
        created_at: now,
        updated_at: now,
        expires_at: new Date(now.getTime() + keepMs),
      };
      await Task.create(doc);
      return toRecord(doc);
    },
    async get(owner: Owner, id: string, now: Date): Promise<TaskRecord | null> {
      const d = await Task.findOne(live(owner, id, now)).lean();
      return d ? toRecord(d) : null;
    },
    /** Starts an attempt: a queued task, or a running one whose worker died, becomes running. Null if it ended or is gone. */
    claim: (owner: Owner, id: string, now: Date): Promise<TaskRecord | null> =>
      unfinished(owner, id, now, { $set: { status: 'running', updated_at: now }, $inc: { attempts: 1 } }),
    complete: (owner: Owner, id: string, result: NonNullable<TaskView['result']>, now: Date) =>
      ended(id, owner, now, { status: 'completed', result_json: toJsonText(result), error: null }),
    fail: (owner: Owner, id: string, error: string, now: Date) => ended(id, owner, now, { status: 'failed', error }),
    /** Back to queued after a transient failure, with the error kept for the client to see. */
    requeue: (owner: Owner, id: string, error: string, now: Date) => ended(id, owner, now, { status: 'queued', error }),
  };
}

export type TaskRepository = ReturnType<typeof createTaskRepository>;
