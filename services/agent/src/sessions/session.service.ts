import { randomUUID } from 'node:crypto';

import { ConflictError, NotFoundError, ValidationError } from '@platform/errors';

import type { MemoryRepository } from '../inference/memory.repository';
import { DuplicateSessionError, type SessionRepository } from './session.repository';
import { MAX_SESSION_ID_CHARS, metadataProblem } from './session.schemas';
import type {
  Owner,
  Session,
  SessionCreate,
  SessionHistory,
  SessionHistoryQuery,
  SessionList,
  SessionListQuery,
  SessionPatch,
  SessionRecord,
  StoredRef,
} from './session.types';

export interface SessionServiceDeps {
  repo: SessionRepository;
  /** The stored turns: a session's messages, and what a session known only by them is. */
  memory: Pick<MemoryRepository, 'first' | 'list' | 'removeSession'>;
  /** The caller's agent by id (404 `Agent not found` when it is not theirs). */
  agentOf: (owner: Owner, agentId: string) => Promise<{ id: number }>;
  clock: () => Date;
}

/** Times a patch reads and merges again when another change landed between its read and its write. */
const PATCH_ATTEMPTS = 5;

const notFound = () => new NotFoundError('Session');

/** A path id no session can have (chat refuses it) names none. */
function checkedId(sessionId: string): string {
  if (sessionId.length < 1 || sessionId.length > MAX_SESSION_ID_CHARS) throw notFound();
  return sessionId;
}

/** What a client sees of a session. */
const view = ({ stored: _stored, ...session }: SessionRecord): Session => session;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON merge patch (RFC 7396): each key of `patch` set to null is removed from `target`, an object value is merged
 * into the target's value, anything else replaces it. Keys are own data properties (`__proto__` too), never setters.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else {
      const merged = mergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value);
      Object.defineProperty(out, key, { value: merged, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/**
 * Sessions v3: records of conversations over the stored chat turns, owner-scoped. A session exists once it was
 * created or once a turn was stored in it; one known only by its turns is read from its first message (agent,
 * start) until it has a record.
 */
export function createSessionService({ repo, memory, agentOf, clock }: SessionServiceDeps) {
  /** The record, or what the session's first stored message says of it; null when neither exists. */
  async function find(owner: Owner, sessionId: string): Promise<SessionRecord | null> {
    const record = await repo.get(owner, sessionId);
    if (record) return record;
    const first = await memory.first(owner, sessionId);
    if (!first) return null;
    const at = first.at.toISOString();
    return {
      session_id: sessionId,
      ...owner,
      agent_id: String(first.agentId),
      metadata: {},
      created_at: at,
      updated_at: at,
    };
  }

  /** The record to patch: the stored one, else one stored now for a session known only by its turns. */
  async function recordToPatch(owner: Owner, sessionId: string): Promise<{ metadata: object; stored: StoredRef }> {
    const found = await find(owner, sessionId);
    if (!found) throw notFound();
    if (found.stored) return { metadata: found.metadata, stored: found.stored };
    await repo.ensure(owner, {
      sessionId,
      agentId: Number(found.agent_id),
      metadata: {},
      at: new Date(found.created_at),
    });
    const record = await repo.get(owner, sessionId);
    if (!record?.stored) throw notFound(); // deleted meanwhile
    return { metadata: record.metadata, stored: record.stored };
  }

  return {
    async create(owner: Owner, body: SessionCreate): Promise<Session> {
      const agent = await agentOf(owner, String(body.agent_id));
      const sessionId = body.session_id ?? randomUUID();
      const taken = () => new ConflictError(`Session ${sessionId} already exists`);
      // A session that chats made without creating it exists too.
      if (body.session_id !== undefined && (await memory.first(owner, sessionId))) throw taken();
      try {
        return view(await repo.create(owner, { sessionId, agentId: agent.id, metadata: body.metadata, at: clock() }));
      } catch (err) {
        if (err instanceof DuplicateSessionError) throw taken();
        throw err;
      }
    },

    async get(owner: Owner, sessionId: string): Promise<Session> {
      const found = await find(owner, checkedId(sessionId));
      if (!found) throw notFound();
      return view(found);
    },

    async list(owner: Owner, query: SessionListQuery): Promise<SessionList> {
      const { limit, offset } = query;
      const agentId = query.agent_id === undefined ? undefined : Number(query.agent_id);
      const { items, total } = await repo.list(owner, { skip: offset, limit, agentId });
      return { sessions: items.map(view), total, limit, offset };
    },

    /** Merges the patch into the metadata over the revision it read; read and merged again if another write won. */
    async patch(owner: Owner, sessionId: string, body: SessionPatch): Promise<Session> {
      checkedId(sessionId);
      for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
        const current = await recordToPatch(owner, sessionId);
        const merged =
          body.metadata === null ? {} : (mergePatch(current.metadata, body.metadata) as Record<string, unknown>);
        const problem = metadataProblem(merged);
        if (problem) throw new ValidationError([{ loc: ['body', 'metadata'], msg: problem, type: 'value_error' }]);
        const updated = await repo.setMetadata(owner, current.stored, merged, clock());
        if (updated) return view(updated);
      }
      throw new ConflictError('The session changed while the patch was applied; send it again');
    },

    /** Deletes the session's messages (memory no longer sees them), then its record. */
    async delete(owner: Owner, sessionId: string): Promise<void> {
      checkedId(sessionId);
      const removed = await memory.removeSession(owner, sessionId);
      const had = await repo.delete(owner, sessionId);
      if (removed === 0 && !had) throw notFound();
    },

    /** The session's messages (optionally of one agent's turns), newest first. */
    async messages(owner: Owner, sessionId: string, query: SessionHistoryQuery): Promise<SessionHistory> {
      checkedId(sessionId);
      const { limit, offset } = query;
      const agentId = query.agent_id === undefined ? undefined : Number(query.agent_id);
      const [record, page] = await Promise.all([
        repo.get(owner, sessionId),
        memory.list(owner, sessionId, { skip: offset, limit, agentId }),
      ]);
      // Neither a record nor a message of any agent: no such session (an agent filter may well match nothing).
      if (!record && page.total === 0 && (agentId === undefined || !(await memory.first(owner, sessionId))))
        throw notFound();
      return { messages: page.items, total: page.total, limit, offset };
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
