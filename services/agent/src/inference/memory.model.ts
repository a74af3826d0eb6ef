import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

import type { Usage } from './inference.types';

/** One message of a session. Written once (insert-only), never updated: FerretDB updates are not atomic. */
export interface ChatMessageDoc {
  _id: mongoose.Types.ObjectId;
  user_id: string;
  org_id: string;
  agent_id: number;
  session_id: string;
  role: 'user' | 'assistant';
  content: string;
  /** When the turn started: both messages of a turn share it, so turns sort in the order they were asked. */
  turn_at: Date;
  /** Shared by both messages of a turn; breaks ties between turns that started in the same millisecond. */
  turn_id: mongoose.Types.ObjectId;
  /** 0 for the user message of a turn, 1 for the reply. */
  seq: number;
  created_at: Date;
  usage: Usage | null;
  provider_id: string | null;
  model: string | null;
  /** The reply's tool calls as JSON text (arguments may hold keys the database treats specially), or null. */
  tool_calls_json: string | null;
  /** What features found on the turn (e.g. RAI violations) as JSON text, on the reply; null when nothing. */
  findings_json?: string | null;
}

const usageSchema = new mongoose.Schema<Usage>(
  { prompt_tokens: Number, completion_tokens: Number, total_tokens: Number },
  { _id: false },
);

const chatMessageSchema = new mongoose.Schema<ChatMessageDoc>(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    agent_id: { type: Number, required: true },
    session_id: { type: String, required: true },
    role: { type: String, enum: ['user', 'assistant'], required: true },
    content: { type: String, default: '' },
    turn_at: { type: Date, required: true },
    turn_id: { type: mongoose.Schema.Types.ObjectId, required: true },
    seq: { type: Number, required: true },
    created_at: { type: Date, required: true },
    usage: { type: usageSchema, default: null },
    provider_id: { type: String, default: null },
    model: { type: String, default: null },
    tool_calls_json: { type: String, default: null },
    findings_json: { type: String, default: null },
  },
  { versionKey: false },
);
// The session leads: a run's memory read (and a session's list) then reads that session's messages alone, not every
// message of its owner (FerretDB serves an equality from the leading field's index; the owner's grow with every run).
chatMessageSchema.index({ session_id: 1, user_id: 1, org_id: 1, agent_id: 1, turn_at: -1, turn_id: -1, seq: -1 });
chatMessageSchema.index({ session_id: 1, user_id: 1, org_id: 1, turn_at: -1, turn_id: -1, seq: -1 });

export function chatMessageModel(conn: Connection): Model<ChatMessageDoc> {
  return modelFor(conn, 'ChatMessage', chatMessageSchema, 'chat_messages');
}
