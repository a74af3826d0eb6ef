import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

const { Mixed } = mongoose.Schema.Types;

/**
 * An HTTP target as stored: header names, query names and the body are the user's free-form JSON, kept as JSON text
 * (`$filter` query parameters, dotted header names, `$`-keys and nested arrays in bodies are all legitimate in JSON
 * and not as document keys). The Mixed fields are read only for documents written before that.
 */
const httpSchema = new mongoose.Schema(
  {
    name: { type: String, required: true },
    url: { type: String, required: true },
    method: { type: String, required: true },
    headers_json: String,
    query_json: String,
    body_json: { type: String, default: null },
    headers_sealed: Mixed,
    query: Mixed,
    body: Mixed,
    timeout_ms: { type: Number, required: true },
  },
  { _id: false, minimize: false },
);

const schema = new mongoose.Schema(
  {
    kind: { type: String, enum: ['agent', 'http'] as const, required: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    agent_id: { type: String, default: null },
    message: { type: String, default: '' },
    http: { type: httpSchema, default: null },
    cron_expression: { type: String, required: true },
    timezone: { type: String, required: true },
    max_retries: { type: Number, required: true },
    retry_delay: { type: Number, required: true },
    overlap_policy: { type: String, enum: ['skip', 'allow'] as const, required: true },
    is_active: { type: Boolean, default: true },
    active_since: { type: Date, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
    last_run_at: { type: Date, default: null },
    last_run_success: { type: Boolean, default: null },
    run_count: { type: Number, default: 0 },
    callback_url: { type: String, default: null },
    callback_secret_sealed: { type: String, default: null },
    /** See schedule.fire-group.ts; null (or absent, before it existed) when unknown: its fires read it alone. */
    fire_group: { type: String, default: null },
  },
  { versionKey: false, minimize: false },
);
// Lists per owner and kind (newest first, with the filters), and the reconciler's walk over active schedules.
schema.index({ user_id: 1, org_id: 1, kind: 1, created_at: -1, _id: -1 });
schema.index({ user_id: 1, org_id: 1, kind: 1, agent_id: 1, created_at: -1, _id: -1 });
schema.index({ user_id: 1, org_id: 1, kind: 1, is_active: 1, created_at: -1, _id: -1 });
schema.index({ user_id: 1, org_id: 1, kind: 1, agent_id: 1, is_active: 1, created_at: -1, _id: -1 });
schema.index({ is_active: 1, _id: 1 });
// The worker's read of the schedules that come due together (schedule.fire-reader.ts).
schema.index({ fire_group: 1 });

/** A stored schedule (agent and HTTP schedules share the collection), as the schema types it. */
export type ScheduleDoc = StoredDoc<typeof schema>;
/** A stored HTTP target. */
export type HttpTargetDoc = NonNullable<ScheduleDoc['http']>;

/** The schedules collection (agent and HTTP schedules). */
export function scheduleModel(conn: Connection) {
  return modelFor(conn, 'Schedule', schema, 'schedules');
}
