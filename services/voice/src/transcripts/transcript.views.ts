import type { Transcript, TranscriptRecord, TranscriptSummary, TranscriptSummaryRecord } from './transcript.types';

/** The OpenAPI document's Transcript (the bookkeeping fields left out): the one mapping from record to wire. */
export function transcriptView(r: TranscriptRecord): Transcript {
  return { ...summaryView(r), sessionReport: r.sessionReport, chatHistory: r.chatHistory };
}

/** A list item: every Transcript field except the report and the chat history. */
export function summaryView(r: TranscriptSummaryRecord): TranscriptSummary {
  return {
    id: r.id,
    sessionId: r.sessionId,
    roomName: r.roomName,
    agentId: r.agentId,
    orgId: r.orgId,
    createdByUserId: r.createdByUserId,
    closeReason: r.closeReason,
    durationMs: r.durationMs,
    messageCount: r.messageCount,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
