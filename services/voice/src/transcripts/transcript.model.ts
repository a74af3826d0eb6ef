import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

/**
 * A transcript's summary fields. Lists and stats never read the report or the chat history (up to 10 MiB), so those
 * live in `transcript_bodies` under the same `_id`.
 */
const transcriptSchema = new mongoose.Schema(
  {
    session_id: { type: String, required: true },
    org_id: { type: String, required: true },
    user_id: { type: String, required: true },
    agent_id: { type: String, required: true },
    room_name: { type: String, default: '' },
    close_reason: { type: String, default: '' },
    duration_ms: { type: Number, required: true },
    message_count: { type: Number, required: true },
    started_at: { type: Date, required: true },
    ended_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    /** Hash of the ingest body that created it (transcript.derive.ts `fingerprintOf`). */
    fingerprint: { type: String, required: true },
    /** True once its agent's totals count it (the name earlier versions wrote, so their documents keep meaning it). */
    tallied: { type: Boolean, default: false },
  },
  { versionKey: false },
);
// Idempotent ingest: one transcript per session and organization. Led by session_id, the field reads look up.
transcriptSchema.index({ session_id: 1, org_id: 1 }, { unique: true });
// The lists by startedAt (then id), either direction, with a from/to range on started_at: an organization's, and one
// of its agents' (also what the agent's stats match).
transcriptSchema.index({ org_id: 1, started_at: 1, _id: 1 });
transcriptSchema.index({ org_id: 1, agent_id: 1, started_at: 1, _id: 1 });

const bodySchema = new mongoose.Schema(
  {
    /** JSON text of the report, exactly as received (`toJsonText`). */
    session_report: { type: String, required: true },
    /** JSON text of `chatHistory`; null when it is the report's own `chat_history` (not stored twice). */
    chat_history: { type: String, default: null },
  },
  { versionKey: false },
);

/**
 * Running totals of one agent's calls in an organization, so that its stats read one document whatever the number of
 * calls. `_id` is `["agent", <org>, <agent>]` (JSON: no id can run into another), in `transcript_tallies`, as earlier
 * versions wrote them: their counts carry over.
 */
const totalsSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    calls: { type: Number, default: 0 },
    messages: { type: Number, default: 0 },
    duration_ms: { type: Number, default: 0 },
  },
  { versionKey: false },
);

export type TranscriptDoc = StoredDoc<typeof transcriptSchema>;
export type TranscriptBodyDoc = StoredDoc<typeof bodySchema>;
export type AgentTotalsDoc = StoredDoc<typeof totalsSchema, string>;

/** The `_id` of an agent's totals. */
export const agentTotalsId = (orgId: string, agentId: string) => JSON.stringify(['agent', orgId, agentId]);

export function transcriptModels(conn: Connection) {
  return {
    Transcript: modelFor(conn, 'Transcript', transcriptSchema, 'transcripts'),
    Body: modelFor(conn, 'TranscriptBody', bodySchema, 'transcript_bodies'),
    AgentTotals: modelFor(conn, 'TranscriptAgentTotals', totalsSchema, 'transcript_tallies'),
  };
}
