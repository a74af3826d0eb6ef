import type { Session } from './session.schemas.types';

export type { Owner } from '@platform/db';
export type {
  Session,
  SessionCreate,
  SessionHistory,
  SessionHistoryQuery,
  SessionList,
  SessionListQuery,
  SessionPatch,
} from './session.schemas.types';

/**
 * A session as plain data: what a client sees (`Session`) and, when it has a stored record (not only turns), that
 * record's id and the revision its metadata is at.
 */
export interface SessionRecord extends Session {
  stored?: StoredRef;
}

/** A stored record: its document id and metadata revision, what a patch writes over (compare-and-set). */
export interface StoredRef {
  id: string;
  rev: number;
}

/** A session to store: its id, agent, metadata and when it began. */
export interface NewSession {
  sessionId: string;
  agentId: number;
  metadata: Record<string, unknown>;
  at: Date;
}
