import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

const count = { type: Number, required: true };
/** A reply's token usage, as the provider reported it. */
const usageSchema = new mongoose.Schema(
  { prompt_tokens: count, completion_tokens: count, total_tokens: count },
  { _id: false },
);

/** One message of a session. Written once (insert-only), never updated. */
const chatMessageSchema = new mongoose.Schema(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    agent_id: { type: Number, required: true },
    session_id: { type: String, required: true },
    role: { type: String, enum: ['user', 'assistant'] as const, required: true },
    content: { type: String, default: '' },
    /** When the turn started: both messages of a turn share it, so turns sort in the order they were asked. */
    turn_at: { type: Date, required: true },
    /** Shared by both messages of a turn; breaks ties between turns that started in the same millisecond. */
    turn_id: { type: mongoose.Schema.Types.ObjectId, required: true },
    /** 0 for the user message of a turn, 1 for the reply. */
    seq: { type: Number, required: true },
    created_at: { type: Date, required: true },
    usage: { type: usageSchema, default: null },
    provider_id: { type: String, default: null },
    model: { type: String, default: null },
    /** The reply's tool calls as JSON text (arguments may hold keys the database treats specially), or null. */
    tool_calls_json: { type: String, default: null },
    /** What features found on the turn (e.g. RAI violations) as JSON text, on the reply; null when nothing. */
    findings_json: { type: String, default: null },
  },
  { versionKey: false },
);
// A session's messages newest first, with one agent (a run's memory read) or with any (the session's list): the
// equalities, then the turn order, so either read is one range of an index holding that session's messages alone,
// however many its owner has in other sessions.
chatMessageSchema.index({ session_id: 1, user_id: 1, org_id: 1, agent_id: 1, turn_at: -1, turn_id: -1, seq: -1 });
chatMessageSchema.index({ session_id: 1, user_id: 1, org_id: 1, turn_at: -1, turn_id: -1, seq: -1 });

/** A stored message, as the schema types it. */
export type ChatMessageDoc = StoredDoc<typeof chatMessageSchema>;

export function chatMessageModel(conn: Connection) {
  return modelFor(conn, 'ChatMessage', chatMessageSchema, 'chat_messages');
}
