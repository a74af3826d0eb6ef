/** The organization a request acts for, and the user whose key made it. */
export interface Caller {
  user_id: string;
  org_id: string;
}

/** One `chatHistory` entry as the voice runtime sends it: `type` names it; other keys are kept as sent. */
export type ChatItem = { type: string } & Record<string, unknown>;

/** An ingest body after validation (unknown top-level fields dropped). */
export interface TranscriptInput {
  sessionId: string;
  agentId: string;
  roomName?: string;
  sessionReport?: Record<string, unknown>;
  chatHistory?: ChatItem[];
  closeReason?: string;
  durationMs?: number;
  messageCount?: number;
  /** ISO 8601. */
  startedAt?: string;
  endedAt?: string;
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

/** A stored transcript without its report and chat history (what lists show). */
export interface TranscriptSummaryRecord {
  id: string;
  sessionId: string;
  roomName: string;
  agentId: string;
  orgId: string;
  createdByUserId: string;
  closeReason: string;
  durationMs: number;
  messageCount: number;
  startedAt: string;
  endedAt: string;
  createdAt: string;
  updatedAt: string;
  /** Hash of the ingest body that created it: a replay with the same hash changes nothing, another is a conflict. */
  fingerprint: string;
  /** False until the organization's and agent's tallies count it (see transcript.service.ts). */
  tallied: boolean;
}

/** A whole stored transcript. */
export interface TranscriptRecord extends TranscriptSummaryRecord {
  sessionReport: Record<string, unknown>;
  chatHistory: ChatItem[];
}

/** The Transcript object of the spec. */
export type Transcript = Omit<TranscriptRecord, 'fingerprint' | 'tallied'>;
/** A list item: the Transcript without `sessionReport` and `chatHistory`. */
export type TranscriptSummary = Omit<TranscriptSummaryRecord, 'fingerprint' | 'tallied'>;

/** `GET /v1/transcripts` query after validation. */
export interface ListQuery {
  limit: number;
  offset: number;
  sort: 'asc' | 'desc';
  agentId?: string;
  /** `startedAt` ≥ from (inclusive). */
  from?: Date;
  /** `startedAt` < to (exclusive). */
  to?: Date;
}

export interface TranscriptList {
  items: TranscriptSummary[];
  total: number;
  limit: number;
  offset: number;
  nextOffset: number | null;
}

export interface AgentStats {
  totalCalls: number;
  avgMessages: number;
  avgDurationMs: number;
}
