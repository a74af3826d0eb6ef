import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

/**
 * A session's record: made by `POST /v3/sessions`, or by the first stored turn of a session that was never created
 * (`ensure`, an insert that a duplicate makes a no-op). Its messages stay in `chat_messages`.
 */
const sessionSchema = new mongoose.Schema(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    session_id: { type: String, required: true },
    agent_id: { type: Number, required: true },
    /** The client's metadata as JSON text (`toJsonText`: its keys may be ones a document store refuses); null: {}. */
    metadata_json: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    /** Bumped by every metadata change: a patch is written only over the revision it merged into. */
    rev: { type: Number, required: true },
  },
  { versionKey: false },
);
// One record per owner and session id: create's 409 and the turns' `ensure` rest on it (and every read by id).
sessionSchema.index({ user_id: 1, org_id: 1, session_id: 1 }, { unique: true });
// The owner's sessions newest first, with any agent or with one.
sessionSchema.index({ user_id: 1, org_id: 1, created_at: -1, _id: -1 });
sessionSchema.index({ user_id: 1, org_id: 1, agent_id: 1, created_at: -1, _id: -1 });

/** A stored session, as the schema types it. */
export type SessionDoc = StoredDoc<typeof sessionSchema>;

export function sessionModel(conn: Connection) {
  return modelFor(conn, 'Session', sessionSchema, 'sessions');
}
