import {
  findPage,
  fromJsonText,
  isDuplicateKeyError,
  mongoose,
  toJsonText,
  type Connection,
  type SortKeys,
} from '@platform/db';

import {
  agentTotalsId,
  transcriptModels,
  type AgentTotalsDoc,
  type TranscriptBodyDoc,
  type TranscriptDoc,
} from './transcript.model';
import type {
  ChatItem,
  DerivedFields,
  ListQuery,
  TranscriptRecord,
  TranscriptSummaryRecord,
  TranscriptTotals,
} from './transcript.types';

/** The one mapping from a stored summary to its record. */
function toSummary(d: TranscriptDoc): TranscriptSummaryRecord {
  return {
    id: d._id.toHexString(),
    sessionId: d.session_id,
    roomName: d.room_name,
    agentId: d.agent_id,
    orgId: d.org_id,
    createdByUserId: d.user_id,
    closeReason: d.close_reason,
    durationMs: d.duration_ms,
    messageCount: d.message_count,
    startedAt: d.started_at.toISOString(),
    endedAt: d.ended_at.toISOString(),
    createdAt: d.created_at.toISOString(),
    updatedAt: d.updated_at.toISOString(),
    fingerprint: d.fingerprint,
    counted: d.tallied,
  };
}

function withBody(summary: TranscriptSummaryRecord, body: TranscriptBodyDoc | null): TranscriptRecord {
  const report = (fromJsonText(body?.session_report, {}) ?? {}) as Record<string, unknown>;
  const chat = body?.chat_history == null ? null : fromJsonText(body.chat_history);
  return {
    ...summary,
    sessionReport: report,
    chatHistory: Array.isArray(chat) ? (chat as ChatItem[]) : reportItems(report),
  };
}

/** The chat history kept only inside the report (the ingest took it from there; see transcript.derive.ts). */
function reportItems(report: Record<string, unknown>): ChatItem[] {
  const history = report.chat_history as { items?: unknown } | undefined;
  const items = Array.isArray(history?.items) ? (history.items as unknown[]) : [];
  return items.filter(
    (i): i is ChatItem => typeof i === 'object' && i !== null && typeof (i as { type?: unknown }).type === 'string',
  );
}

/**
 * The documents a list matches: the organization's (one agent's), `from` ≤ started_at < `to`. With the sort below,
 * served by the index `(org_id[, agent_id], started_at, _id)`, walked forward or backward.
 */
function listFilter(orgId: string, q: Pick<ListQuery, 'agentId' | 'from' | 'to'>): Record<string, unknown> {
  const filter: Record<string, unknown> = { org_id: orgId };
  if (q.agentId !== undefined) filter.agent_id = q.agentId;
  if (q.from !== undefined || q.to !== undefined)
    filter.started_at = { ...(q.from && { $gte: q.from }), ...(q.to && { $lt: q.to }) };
  return filter;
}

const byStart = (dir: 1 | -1): SortKeys => [
  ['started_at', dir],
  ['_id', dir],
];

export interface NewTranscript extends DerivedFields {
  sessionId: string;
  agentId: string;
  orgId: string;
  userId: string;
  sessionReport: Record<string, unknown>;
  /** Null when the chat history is the report's own. */
  chatHistory: ChatItem[] | null;
  fingerprint: string;
  now: Date;
}

/** Transcripts: summaries in one collection, report and chat history in another under the same id. */
export function createTranscriptRepository(conn: Connection) {
  const { Transcript, Body, AgentTotals } = transcriptModels(conn);
  return {
    /** Stores a new transcript; null when the organization already has one for the session. */
    async insert(t: NewTranscript): Promise<TranscriptRecord | null> {
      const _id = new mongoose.Types.ObjectId();
      // The body first: a summary never points at a missing body. A lost race leaves no orphan behind.
      await Body.collection.insertOne({
        _id,
        session_report: toJsonText(t.sessionReport) ?? '{}',
        chat_history: toJsonText(t.chatHistory),
      });
      const doc: TranscriptDoc = {
        _id,
        session_id: t.sessionId,
        org_id: t.orgId,
        user_id: t.userId,
        agent_id: t.agentId,
        room_name: t.roomName,
        close_reason: t.closeReason,
        duration_ms: t.durationMs,
        message_count: t.messageCount,
        started_at: t.startedAt,
        ended_at: t.endedAt,
        created_at: t.now,
        updated_at: t.now,
        fingerprint: t.fingerprint,
        tallied: false,
      };
      try {
        await Transcript.collection.insertOne(doc);
      } catch (err) {
        await Body.deleteOne({ _id });
        if (isDuplicateKeyError(err)) return null;
        throw err;
      }
      return { ...toSummary(doc), sessionReport: t.sessionReport, chatHistory: t.chatHistory ?? [] };
    },

    /** The organization's transcript of a session, whole; null when it has none. */
    async findBySession(orgId: string, sessionId: string): Promise<TranscriptRecord | null> {
      const d = await Transcript.findOne({ session_id: sessionId, org_id: orgId }).lean<TranscriptDoc>();
      if (!d) return null;
      return withBody(toSummary(d), await Body.findById(d._id).lean<TranscriptBodyDoc>());
    },

    /** One page of the organization's (or one agent's) transcripts by startedAt then id, and how many match. */
    page(orgId: string, q: ListQuery): Promise<{ items: TranscriptSummaryRecord[]; total: number }> {
      const sort = byStart(q.sort === 'asc' ? 1 : -1);
      // findPage types a document as its schema without `_id`; what lean() reads has it.
      const toRecord = (d: object) => toSummary(d as TranscriptDoc);
      return findPage(Transcript, listFilter(orgId, q), { skip: q.offset, limit: q.limit }, toRecord, sort);
    },

    /** Marks a transcript as counted in its agent's totals; true for the one caller that did so. */
    async claimCount(id: string): Promise<boolean> {
      const r = await Transcript.updateOne({ _id: id, tallied: false }, { $set: { tallied: true } });
      return r.modifiedCount === 1;
    },

    /** Counts one call in its agent's totals. */
    async addToTotals(t: Pick<TranscriptSummaryRecord, 'orgId' | 'agentId' | 'messageCount' | 'durationMs'>) {
      const $inc = { calls: 1, messages: t.messageCount, duration_ms: t.durationMs };
      await AgentTotals.updateOne({ _id: agentTotalsId(t.orgId, t.agentId) }, { $inc }, { upsert: true });
    },

    /** How many calls one of the organization's agents has, with their messages and duration summed. */
    async agentTotals(orgId: string, agentId: string): Promise<TranscriptTotals> {
      const d = await AgentTotals.findById(agentTotalsId(orgId, agentId)).lean<AgentTotalsDoc>();
      return { calls: d?.calls ?? 0, messages: d?.messages ?? 0, durationMs: d?.duration_ms ?? 0 };
    },
  };
}

export type TranscriptRepository = ReturnType<typeof createTranscriptRepository>;
