import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

export interface TaskDoc {
  _id: mongoose.Types.ObjectId;
  user_id: string;
  org_id: string;
  rag_id: string;
  status: string;
  input_json: string;
  pages_crawled: number;
  pages_trained: number;
  crawl_errors: { url: string; reason: string }[];
  error: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  /** Tasks are read for 7 days; older ones answer 404 (FerretDB has no TTL indexes). */
  expires_at: Date;
}

const taskSchema = new mongoose.Schema<TaskDoc>(
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
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
taskSchema.index({ user_id: 1, org_id: 1, created_at: -1 });

export function taskModel(conn: Connection): Model<TaskDoc> {
  return modelFor(conn, 'GraphTask', taskSchema, 'graph_tasks');
}
