import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

import type { TaskStatus } from './task.types';

/** An inference task. Its state moves queued → running → completed | failed (running → queued between attempts). */
export interface TaskDoc {
  _id: string;
  user_id: string;
  org_id: string;
  status: TaskStatus;
  /** The chat body as JSON text (`toJsonText`). */
  input_json: string;
  /** The chat result as JSON text, once completed. */
  result_json: string | null;
  error: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  /** Tasks are kept 7 days: removed by `createExpiry` (TTL index or sweep); reads ignore expired ones. */
  expires_at: Date;
}

const taskSchema = new mongoose.Schema<TaskDoc>(
  {
    _id: { type: String, required: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    status: { type: String, enum: ['queued', 'running', 'completed', 'failed'], required: true },
    input_json: { type: String, required: true },
    result_json: { type: String, default: null },
    error: { type: String, default: null },
    attempts: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);

export const taskModel = (conn: Connection): Model<TaskDoc> =>
  modelFor(conn, 'InferenceTask', taskSchema, 'inference_tasks');
