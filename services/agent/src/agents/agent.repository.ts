import { createSequence, type Connection } from '@platform/db';
import { agentModel, type AgentDoc } from './agent.model';
import type { AgentInput, AgentKind, AgentRecord, Owner } from './agent.types';

function toRecord(d: AgentDoc): AgentRecord {
  const { _id, created_at, updated_at, ...rest } = d;
  delete (rest as Record<string, unknown>)._rev;
  return { ...rest, id: _id, created_at: created_at.toISOString(), updated_at: updated_at ? updated_at.toISOString() : null };
}

const ownerFilter = (owner: Owner) => ({ user_id: owner.user_id, org_id: owner.org_id });

/** Agents in MongoDB. Every query is scoped to its owner (user and org). */
export function createAgentRepository(conn: Connection) {
  const Agent = agentModel(conn);
  const nextId = createSequence(conn, 'agents');
  return {
    async create(owner: Owner, kind: AgentKind, input: AgentInput, now: Date): Promise<AgentRecord> {
      const doc = await Agent.create({ ...input, ...ownerFilter(owner), _id: await nextId(), kind, created_at: now });
      return toRecord(doc.toObject());
    },
    async get(owner: Owner, id: number): Promise<AgentRecord | null> {
      const d = await Agent.findOne({ _id: id, ...ownerFilter(owner) }).lean<AgentDoc>();
      return d ? toRecord(d) : null;
    },
    async list(owner: Owner, skip: number, limit: number): Promise<{ items: AgentRecord[]; total: number }> {
      const filter = ownerFilter(owner);
      const [docs, total] = await Promise.all([
        Agent.find(filter).sort({ created_at: -1, _id: -1 }).skip(skip).limit(limit).lean<AgentDoc[]>(),
        Agent.countDocuments(filter),
      ]);
      return { items: docs.map(toRecord), total };
    },
    /** Replaces the client-settable fields; false when the owner has no such agent of that kind. */
    async replace(owner: Owner, id: number, kind: AgentKind | undefined, input: AgentInput, now: Date): Promise<boolean> {
      const filter = { _id: id, ...ownerFilter(owner), ...(kind ? { kind } : {}) };
      const current = await Agent.findOne(filter).lean<AgentDoc>();
      if (!current) return false;
      const replacement = new Agent({ ...input, ...ownerFilter(owner), _id: id, kind: current.kind, created_at: current.created_at, updated_at: now });
      const r = await Agent.replaceOne(filter, replacement.toObject());
      return r.matchedCount === 1;
    },
    async delete(owner: Owner, id: number): Promise<boolean> {
      const r = await Agent.deleteOne({ _id: id, ...ownerFilter(owner) });
      return r.deletedCount === 1;
    },
    async init(): Promise<void> {
      await Agent.init();
    },
  };
}

export type AgentRepository = ReturnType<typeof createAgentRepository>;
