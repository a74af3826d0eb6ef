// Generated from session.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

import type { SessionMessage } from '../inference/inference.schemas.types';

export interface Session {
  session_id: string;
  user_id: string;
  org_id: string;
  /**
   * The agent it was created for (or that answered its first turn)
   */
  agent_id: string;
  metadata: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  created_at: string;
  /**
   * When it was created or its metadata last changed
   */
  updated_at: string;
}

export interface SessionCreate {
  /**
   * The agent id: its digits as a string, or a JSON integer; an agent that is not the caller's (or any other value) → 404.
   */
  agent_id: string | number;
  /**
   * The id chat calls will name (`session_id` of /v3/inference/chat/); absent: a new UUID. Unique per owner (409).
   */
  session_id?: string;
  /**
   * The client's free-form data: a JSON object of at most 64 keys and 16384 bytes as JSON, kept as sent.
   */
  metadata: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
}

export interface SessionHistory {
  messages: SessionMessage[];
  total: number;
  limit: number;
  offset: number;
}

export interface SessionHistoryQuery {
  /**
   * Items to return at most
   */
  limit: number;
  /**
   * Items to skip
   */
  offset: number;
  /**
   * Only what belongs to this agent
   */
  agent_id?: string;
}

export interface SessionIdPath {
  session_id: string;
}

export interface SessionList {
  sessions: Session[];
  total: number;
  limit: number;
  offset: number;
}

export interface SessionListQuery {
  /**
   * Items to return at most
   */
  limit: number;
  /**
   * Items to skip
   */
  offset: number;
  /**
   * Only what belongs to this agent
   */
  agent_id?: string;
}

export interface SessionPatch {
  /**
   * Merged into the stored metadata (JSON merge patch, RFC 7396): a key set to null is removed, an object merged key by key, any other value replaces; null clears the metadata. The patch and the result: at most 64 keys and 16384 bytes as JSON (422 at ["body","metadata"]).
   */
  metadata: /**
   * Merged into the stored metadata (JSON merge patch, RFC 7396): a key set to null is removed, an object merged key by key, any other value replaces; null clears the metadata. The patch and the result: at most 64 keys and 16384 bytes as JSON (422 at ["body","metadata"]).
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
}
