import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

/**
 * A transcript's summary fields. Lists and stats never read the report or the chat history (up to 10 MiB), so those
 * live in `transcript_bodies` under the same `_id`.
 */
export interface TranscriptDoc {
  _id: mongoose.Types.ObjectId;
  session_id: string;
  org_id: string;
  user_id: string;
  agent_id: string;
  room_name: string;
  close_reason: string;
  duration_ms: number;
  message_count: number;
  started_at: Date;
  ended_at: Date;
  created_at: Date;
  updated_at: Date;
  fingerprint: string;
  tallied: boolean;
  /** The organization's and the agent's 15-minute bucket of `started_at` (transcript.buckets.ts): lists read by these. */
  org_bucket: string;
  agent_bucket: string;
}

export interface TranscriptBodyDoc {
  _id: mongoose.Types.ObjectId;
  /** JSON text of the report, exactly as received (`toJsonText`). */
  session_report: string;
  /** JSON text of `chatHistory`; null when it is the report's own `chat_history` (not stored twice). */
  chat_history: string | null;
}

/**
 * Counts of transcripts (transcript.buckets.ts): an organization's or agent's (totals, and `counts` per day number)
 * or one day's of them (`counts` per bucket number).
 */
export interface TallyDoc {
  _id: string;
  calls: number;
  messages: number;
  duration_ms: number;
  counts: Record<string, number>;
}

const transcriptSchema = new mongoose.Schema<TranscriptDoc>(
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
    fingerprint: { type: String, required: true },
    tallied: { type: Boolean, default: false },
    org_bucket: { type: String, required: true },
    agent_bucket: { type: String, required: true },
  },
  { versionKey: false },
);
// Idempotent ingest: one transcript per session and organization. Led by session_id, the field reads look up.
transcriptSchema.index({ session_id: 1, org_id: 1 }, { unique: true });
transcriptSchema.index({ org_bucket: 1, started_at: 1 });
transcriptSchema.index({ agent_bucket: 1, started_at: 1 });

const bodySchema = new mongoose.Schema<TranscriptBodyDoc>(
  { session_report: { type: String, required: true }, chat_history: { type: String, default: null } },
  { versionKey: false },
);

const tallySchema = new mongoose.Schema<TallyDoc>(
  {
    _id: { type: String, required: true },
    calls: { type: Number, default: 0 },
    messages: { type: Number, default: 0 },
    duration_ms: { type: Number, default: 0 },
    counts: { type: mongoose.Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);

export function transcriptModels(conn: Connection): {
  Transcript: Model<TranscriptDoc>;
  Body: Model<TranscriptBodyDoc>;
  Tally: Model<TallyDoc>;
} {
  return {
    Transcript: modelFor(conn, 'Transcript', transcriptSchema, 'transcripts'),
    Body: modelFor(conn, 'TranscriptBody', bodySchema, 'transcript_bodies'),
    Tally: modelFor(conn, 'TranscriptTally', tallySchema, 'transcript_tallies'),
  };
}
