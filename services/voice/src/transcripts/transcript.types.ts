import type { Transcript, TranscriptSummary } from './transcript.schemas.types';

export type {
  AgentStats,
  ChatItem,
  Transcript,
  TranscriptIngest as TranscriptInput,
  TranscriptList,
  TranscriptListQuery as ListQuery,
  TranscriptSummary,
} from './transcript.schemas.types';

/** The organization a request acts for, and the user whose key made it. */
export interface Caller {
  user_id: string;
  org_id: string;
}

/** What a transcript's summary fields are once derived from the report (see transcript.derive.ts). */
export interface DerivedFields {
  roomName: string;
  closeReason: string;
  durationMs: number;
  messageCount: number;
  startedAt: Date;
  endedAt: Date;
}

/** A stored transcript without its report and chat history: what lists show, plus the service's bookkeeping. */
export interface TranscriptSummaryRecord extends TranscriptSummary {
  /** Hash of the ingest body that created it: a replay with the same hash changes nothing, another is a conflict. */
  fingerprint: string;
  /** False until its agent's totals count it (see transcript.service.ts). */
  counted: boolean;
}

/** One agent's calls, with their message counts and durations summed. */
export interface TranscriptTotals {
  calls: number;
  messages: number;
  durationMs: number;
}

/** A whole stored transcript. */
export interface TranscriptRecord extends TranscriptSummaryRecord {
  sessionReport: Transcript['sessionReport'];
  chatHistory: Transcript['chatHistory'];
}
