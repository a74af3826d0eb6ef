import {
  createGroupCommit,
  findPage,
  insertEach,
  mongoose,
  ownerFilter,
  perConnection,
  type Connection,
  type SortKeys,
} from '@platform/db';

import type { ChatMessage, Owner, StoredMessage, ToolCallRecord, TurnFinding, Usage } from './inference.types';
import { chatMessageModel, type ChatMessageDoc } from './memory.model';

/** A finished turn: the user's message and the model's reply. */
export interface Turn {
  agentId: number;
  sessionId: string;
  message: string;
  reply: string;
  startedAt: Date;
  finishedAt: Date;
  usage: Usage | null;
  providerId: string;
  model: string;
  /** Tool calls made while answering, in order. */
  toolCalls: ToolCallRecord[];
  /** What features found on the turn (e.g. RAI violations); absent or empty: nothing. */
  findings?: TurnFinding[];
}

/** A session's messages newest first: by turn, then the reply before the user's message. */
const NEWEST_FIRST: SortKeys = [
  ['turn_at', -1],
  ['turn_id', -1],
  ['seq', -1],
];
const OLDEST_FIRST = Object.fromEntries(NEWEST_FIRST.map(([field]) => [field, 1 as const]));

function toRecord(d: ChatMessageDoc): StoredMessage {
  return {
    id: d._id.toHexString(),
    session_id: d.session_id,
    agent_id: String(d.agent_id),
    role: d.role,
    content: d.content,
    created_at: d.created_at.toISOString(),
    usage: d.usage ?? null,
    tool_calls: d.tool_calls_json ? (JSON.parse(d.tool_calls_json) as ToolCallRecord[]) : [],
    ...(d.findings_json ? { findings: JSON.parse(d.findings_json) as TurnFinding[] } : {}),
  };
}

/**
 * Turns that end together (the worker runs dozens of agents at once) are stored together: while an insert is in
 * flight the next turns wait and go in one unordered `insertMany` (at most this many documents, this many inserts at
 * once per connection). Each turn still waits for its own two documents to be written.
 */
const TURN_INSERT_BATCH = 64;
const TURN_INSERT_PARALLEL = 4;

/** The turns of every request on a connection, inserted together. */
const turnInserts = perConnection((conn) =>
  // Each document has an `_id` of its own, so a batch cut off by a lost connection is sent once more safely.
  createGroupCommit(insertEach(chatMessageModel(conn), { retry: true }), {
    maxBatch: TURN_INSERT_BATCH,
    maxParallel: TURN_INSERT_PARALLEL,
  }),
);

/** Conversation memory in `chat_messages`, scoped to (user, org, agent, session). Insert-only. */
export function createMemoryRepository(conn: Connection) {
  const Message = chatMessageModel(conn);
  const insert = turnInserts(conn);
  return {
    /** The last `limit` messages of the session with this agent, oldest first. */
    async recent(owner: Owner, agentId: number, sessionId: string, limit: number): Promise<ChatMessage[]> {
      if (limit <= 0) return [];
      const filter = { ...ownerFilter(owner), agent_id: agentId, session_id: sessionId };
      const docs = await Message.find(filter, { role: 1, content: 1 }).sort(NEWEST_FIRST).limit(limit).lean();
      return docs.reverse().map((d) => ({ role: d.role, content: d.content }));
    },

    /**
     * Stores both messages of a turn; the reply carries the token usage. The documents are built here whole, every
     * field of the schema typed and set (no default left to apply), so they are inserted as they are: mongoose's
     * casting and validation of two documents were a tenth of the agent service's CPU per run. Concurrent turns share
     * one insert (see TURN_INSERT_BATCH).
     */
    async appendTurn(owner: Owner, turn: Turn): Promise<void> {
      const base = {
        user_id: owner.user_id,
        org_id: owner.org_id,
        agent_id: turn.agentId,
        session_id: turn.sessionId,
        turn_at: turn.startedAt,
        turn_id: new mongoose.Types.ObjectId(),
      };
      const none = { usage: null, provider_id: null, model: null, tool_calls_json: null, findings_json: null };
      const docs: ChatMessageDoc[] = [
        {
          _id: new mongoose.Types.ObjectId(),
          ...base,
          ...none,
          role: 'user',
          content: turn.message,
          seq: 0,
          created_at: turn.startedAt,
        },
        {
          _id: new mongoose.Types.ObjectId(),
          ...base,
          role: 'assistant',
          content: turn.reply,
          seq: 1,
          created_at: turn.finishedAt,
          usage: turn.usage ? { ...turn.usage } : null,
          provider_id: turn.providerId,
          model: turn.model,
          tool_calls_json: turn.toolCalls.length ? JSON.stringify(turn.toolCalls) : null,
          findings_json: turn.findings?.length ? JSON.stringify(turn.findings) : null,
        },
      ];
      // Both in one batch: a turn is one insert, never two.
      await insert.addAll(docs);
    },

    /** The owner's messages of a session (optionally of one agent), newest first, with the total count. */
    list(owner: Owner, sessionId: string, page: { skip: number; limit: number; agentId?: number }) {
      const filter = {
        ...ownerFilter(owner),
        session_id: sessionId,
        ...(page.agentId === undefined ? {} : { agent_id: page.agentId }),
      };
      return findPage(Message, filter, page, (d) => toRecord(d as ChatMessageDoc), NEWEST_FIRST);
    },

    /**
     * The first message of the owner's session (with any agent): its agent and when its turn began; null when the
     * session has none. What a session known only by its turns is described by.
     */
    async first(owner: Owner, sessionId: string): Promise<{ agentId: number; at: Date } | null> {
      const d = await Message.findOne({ ...ownerFilter(owner), session_id: sessionId }, { agent_id: 1, turn_at: 1 })
        .sort(OLDEST_FIRST)
        .lean();
      return d ? { agentId: d.agent_id, at: d.turn_at } : null;
    },

    /** Deletes every message of the owner's session (with any agent), so memory no longer sees them; how many. */
    async removeSession(owner: Owner, sessionId: string): Promise<number> {
      return (await Message.deleteMany({ ...ownerFilter(owner), session_id: sessionId })).deletedCount;
    },

    async init(): Promise<void> {
      await Message.init();
    },
  };
}

export type MemoryRepository = ReturnType<typeof createMemoryRepository>;
