import {
  atomicUpdateOne,
  fromJsonText,
  isDuplicateKeyError,
  mongoose,
  toJsonText,
  type Connection,
} from '@platform/db';

import { transcriptModels, type TranscriptBodyDoc, type TranscriptDoc } from './transcript.model';
import type { ChatItem, DerivedFields, TranscriptRecord, TranscriptSummaryRecord } from './transcript.types';

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
    tallied: d.tallied,
  };
}

function withBody(summary: TranscriptSummaryRecord, body: TranscriptBodyDoc | null): TranscriptRecord {
  const report = (fromJsonText(body?.session_report, {}) ?? {}) as Record<string, unknown>;
  const chat = body?.chat_history === null || body?.chat_history === undefined ? null : fromJsonText(body.chat_history);
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

export interface NewTranscript extends DerivedFields {
  sessionId: string;
  agentId: string;
  orgId: string;
  userId: string;
  sessionReport: Record<string, unknown>;
  /** Null when the chat history is the report's own. */
  chatHistory: ChatItem[] | null;
  fingerprint: string;
  orgBucket: string;
  agentBucket: string;
  now: Date;
}

/** Transcripts: summaries in one collection, report and chat history in another under the same id. */
export function createTranscriptRepository(conn: Connection) {
  const { Transcript, Body } = transcriptModels(conn);
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
        org_bucket: t.orgBucket,
        agent_bucket: t.agentBucket,
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
    /** Every transcript of one bucket key (`org_bucket` or `agent_bucket`), in no particular order. */
    async bucket(field: 'org_bucket' | 'agent_bucket', key: string): Promise<TranscriptSummaryRecord[]> {
      const docs = await Transcript.find({ [field]: key }).lean<TranscriptDoc[]>();
      return docs.map(toSummary);
    },
    /** Marks a transcript as counted by the tallies; true for the one caller that did so. */
    async claimTally(id: string): Promise<boolean> {
      return (
        (await atomicUpdateOne(
          Transcript,
          { _id: new mongoose.Types.ObjectId(id), tallied: false },
          { $set: { tallied: true } },
        )) !== null
      );
    },
  };
}

export type TranscriptRepository = ReturnType<typeof createTranscriptRepository>;
