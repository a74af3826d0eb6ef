import {
  createGroupCommit,
  findPage,
  fromJsonText,
  insertEach,
  isDuplicateKeyError,
  mongoose,
  ownerFilter,
  perConnection,
  toJsonText,
  type Connection,
  type Page,
} from '@platform/db';

import { sessionModel, type SessionDoc } from './session.model';
import type { NewSession, Owner, SessionRecord, StoredRef } from './session.types';

function toRecord(d: SessionDoc): SessionRecord {
  return {
    session_id: d.session_id,
    user_id: d.user_id,
    org_id: d.org_id,
    agent_id: String(d.agent_id),
    metadata: (fromJsonText(d.metadata_json, {}) ?? {}) as Record<string, unknown>,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    stored: { id: d._id.toHexString(), rev: d.rev },
  };
}

/** The document of a new session, every field of the schema typed and set, so it is inserted as it is. */
function docOf(owner: Owner, s: NewSession): SessionDoc {
  return {
    _id: new mongoose.Types.ObjectId(),
    ...ownerFilter(owner),
    session_id: s.sessionId,
    agent_id: s.agentId,
    metadata_json: Object.keys(s.metadata).length > 0 ? toJsonText(s.metadata) : null,
    created_at: s.at,
    updated_at: s.at,
    rev: 0,
  };
}

/** Thrown when the owner already has a session with that id. */
export class DuplicateSessionError extends Error {}

/**
 * The records that turns make (`ensure`) go in as the turns' own messages do: concurrent ones in one unordered
 * `insertMany` per connection (at most this many documents, this many inserts at once).
 */
const ENSURE_BATCH = 64;
const ENSURE_PARALLEL = 4;
const ensureInserts = perConnection((conn) =>
  // A duplicate (the record is there) is that document's own outcome; the others of the batch are written.
  createGroupCommit(insertEach(sessionModel(conn), { retry: true }), {
    maxBatch: ENSURE_BATCH,
    maxParallel: ENSURE_PARALLEL,
  }),
);

const scoped = (owner: Owner, sessionId: string) => ({ ...ownerFilter(owner), session_id: sessionId });

/** Session records (`sessions`), each scoped to its owner and unique per owner and session id. */
export function createSessionRepository(conn: Connection) {
  const Session = sessionModel(conn);
  const ensures = ensureInserts(conn);
  return {
    /** Stores a new session; DuplicateSessionError when the owner has one with that id. */
    async create(owner: Owner, s: NewSession): Promise<SessionRecord> {
      const doc = docOf(owner, s);
      try {
        await Session.collection.insertOne(doc);
      } catch (err) {
        if (isDuplicateKeyError(err)) throw new DuplicateSessionError(s.sessionId);
        throw err;
      }
      return toRecord(doc);
    },

    /**
     * Stores the record of a session that a turn was stored in, unless it has one already (then nothing changes):
     * one insert, batched with those of concurrent turns, that the unique index refuses when the record is there.
     */
    async ensure(owner: Owner, s: NewSession): Promise<void> {
      try {
        await ensures.add(docOf(owner, s));
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },

    async get(owner: Owner, sessionId: string): Promise<SessionRecord | null> {
      const d = await Session.findOne(scoped(owner, sessionId)).lean();
      return d ? toRecord(d) : null;
    },

    /** The owner's sessions (optionally of one agent), newest first, with their total. */
    list(owner: Owner, page: Page & { agentId?: number }): Promise<{ items: SessionRecord[]; total: number }> {
      const filter = { ...ownerFilter(owner), ...(page.agentId === undefined ? {} : { agent_id: page.agentId }) };
      return findPage(Session, filter, page, (d) => toRecord(d as SessionDoc));
    },

    /**
     * Replaces the metadata if the record is still at the revision read (compare-and-set, on the record's `_id`); null
     * when it is not (changed or deleted meanwhile).
     */
    async setMetadata(
      owner: Owner,
      stored: StoredRef,
      metadata: Record<string, unknown>,
      now: Date,
    ): Promise<SessionRecord | null> {
      const d = await Session.findOneAndUpdate(
        { _id: stored.id, ...ownerFilter(owner), rev: stored.rev },
        {
          $set: { metadata_json: Object.keys(metadata).length > 0 ? toJsonText(metadata) : null, updated_at: now },
          $inc: { rev: 1 },
        },
        { returnDocument: 'after' },
      ).lean();
      return d ? toRecord(d) : null;
    },

    /** Whether there was a record to delete. */
    async delete(owner: Owner, sessionId: string): Promise<boolean> {
      return (await Session.deleteOne(scoped(owner, sessionId))).deletedCount === 1;
    },
  };
}

export type SessionRepository = ReturnType<typeof createSessionRepository>;
