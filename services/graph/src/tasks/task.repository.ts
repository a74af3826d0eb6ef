import { isObjectIdHex, ownerFilter, type Connection, type Owner } from '@platform/db';

import type { TrainInput } from '../graph/train.types';
import { TASK_KEEP_MS, taskModel, type TaskDoc } from './task.model';
import type { TaskRecord, TaskStatus } from './task.types';

const toRecord = (d: TaskDoc): TaskRecord => ({
  id: d._id.toHexString(),
  user_id: d.user_id,
  org_id: d.org_id,
  rag_id: d.rag_id,
  status: d.status as TaskStatus,
  input: JSON.parse(d.input_json) as TrainInput,
  pages_crawled: d.pages_crawled ?? 0,
  pages_trained: d.pages_trained ?? 0,
  errors: (d.crawl_errors ?? []).map((e) => ({ url: e.url ?? '', reason: e.reason ?? '' })),
  error: d.error ?? null,
  attempts: d.attempts ?? 0,
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
});

export type TaskChanges = Partial<
  Pick<TaskRecord, 'status' | 'pages_crawled' | 'pages_trained' | 'errors' | 'error' | 'attempts'>
>;

/** Asynchronous trainings, each scoped to its owner. */
export function createTaskRepository(conn: Connection) {
  const Task = taskModel(conn);
  // Kept 7 days: the TTL index removes them within a minute or so of expiring; reads ignore expired ones meanwhile.
  return {
    async create(owner: Owner, ragId: string, input: TrainInput, now: Date): Promise<TaskRecord> {
      const doc = await Task.create({
        ...ownerFilter(owner),
        rag_id: ragId,
        status: 'queued',
        input_json: JSON.stringify(input),
        created_at: now,
        updated_at: now,
        expires_at: new Date(now.getTime() + TASK_KEEP_MS),
      });
      return toRecord(doc.toObject());
    },
    async get(owner: Owner, id: string, now: Date): Promise<TaskRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Task.findOne({ _id: id, ...ownerFilter(owner), expires_at: { $gt: now } }).lean();
      return d ? toRecord(d) : null;
    },
    /** For the consumer, which acts for whoever queued the task. */
    async byId(id: string): Promise<TaskRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Task.findOne({ _id: id }).lean();
      return d ? toRecord(d) : null;
    },
    async update(id: string, changes: TaskChanges, now: Date): Promise<void> {
      const { errors, ...rest } = changes;
      await Task.updateOne(
        { _id: id },
        { $set: { ...rest, ...(errors ? { crawl_errors: errors } : {}), updated_at: now } },
      );
    },
  };
}

export type TaskRepository = ReturnType<typeof createTaskRepository>;
