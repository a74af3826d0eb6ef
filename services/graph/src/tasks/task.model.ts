import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

/** How long a task is kept: older ones answer 404, and the TTL index on `expires_at` removes them. */
export const TASK_KEEP_MS = 7 * 24 * 3600 * 1000;

const taskSchema = new mongoose.Schema(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    rag_id: { type: String, required: true },
    status: { type: String, required: true },
    input_json: { type: String, required: true },
    pages_crawled: { type: Number, default: 0 },
    pages_trained: { type: Number, default: 0 },
    crawl_errors: { type: [{ _id: false, url: String, reason: String }], default: [] },
    error: { type: String, default: null },
    attempts: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    /** `created_at` + `TASK_KEEP_MS`. */
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// Every read is by `_id`; the one other index is the TTL index that removes a task once it expired.
taskSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

/** A stored task, as the schema types it. */
export type TaskDoc = StoredDoc<typeof taskSchema>;

export function taskModel(conn: Connection) {
  return modelFor(conn, 'GraphTask', taskSchema, 'graph_tasks');
}
