// Generated from transcript.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface TranscriptAgentPath {
  agentId: string;
}

export interface AgentStats {
  totalCalls: number;
  avgMessages: number;
  avgDurationMs: number;
}

/**
 * message {role, content}, agent_handoff {new_agent_id, old_agent_id?}, function_call {call_id, name, arguments}, function_call_output {call_id, output, is_error?}; other types are kept as sent.
 */
export interface ChatItem {
  type: string;
  /**
   * Unknown Property
   */
  [x: string]: unknown;
}

export interface TranscriptIngest {
  sessionId: string;
  agentId: string;
  roomName?: string;
  sessionReport?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  chatHistory?: ChatItem[];
  closeReason?: string;
  durationMs?: number;
  messageCount?: number;
  startedAt?: string;
  endedAt?: string;
}

export interface TranscriptListQuery {
  limit: number;
  offset: number;
  sort: 'asc' | 'desc';
  agentId?: string;
  /**
   * startedAt ≥ from
   */
  from?: Date;
  /**
   * startedAt < to
   */
  to?: Date;
}

export interface TranscriptSessionPath {
  sessionId: string;
}

export interface TranscriptEnvelope {
  transcript: Transcript;
}

export interface TranscriptError {
  error: string;
  details: string;
}

export interface TranscriptList {
  items: TranscriptSummary[];
  total: number;
  limit: number;
  offset: number;
  nextOffset: number | null;
}

export interface Transcript {
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
  sessionReport: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  chatHistory: ChatItem[];
}

export interface TranscriptSummary {
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
}
