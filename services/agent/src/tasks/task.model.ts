import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

import type { TaskStatus } from './task.types';

const STATUSES = ['queued', 'running', 'completed', 'failed'] as const satisfies readonly TaskStatus[];

/** An inference task. Its state moves queued → running → completed | failed (running → queued between attempts). */
const taskSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    status: { type: String, enum: STATUSES, required: true },
    /** The chat body as JSON text (`toJsonText`). */
    input_json: { type: String, required: true },
    /** The chat result as JSON text, once completed. */
    result_json: { type: String, default: null },
    error: { type: String, default: null },
    attempts: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    /** When the task is gone: reads ignore it from then on, and the TTL index below removes it soon after. */
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// Every read and update is by `_id`; the one other index is the TTL index that removes a task once it expired.
taskSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

/** A stored task, as the schema types it (its id a UUID). */
export type TaskDoc = StoredDoc<typeof taskSchema, string>;

export const taskModel = (conn: Connection) => modelFor(conn, 'InferenceTask', taskSchema, 'inference_tasks');
