import { NotFoundError } from '@platform/errors';

import type { AgentRepository } from './agent.repository';
import type { AgentInput, AgentKind, AgentRecord, Owner } from './agent.types';

export interface AgentServiceDeps {
  repo: AgentRepository;
  clock: () => Date;
}

const MAX_ID = Number.MAX_SAFE_INTEGER;

/** Parses a path id; anything that is not a decimal integer below 2^53 is simply an unknown agent. */
export function parseAgentId(raw: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) throw new NotFoundError('Agent');
  const id = Number(raw);
  if (id > MAX_ID) throw new NotFoundError('Agent');
  return id;
}

/** Agent rules: ownership, kinds, replacement on update. */
export function createAgentService({ repo, clock }: AgentServiceDeps) {
  return {
    create: (owner: Owner, kind: AgentKind, input: AgentInput) => repo.create(owner, kind, input, clock()),

    async get(owner: Owner, rawId: string): Promise<AgentRecord> {
      const agent = await repo.get(owner, parseAgentId(rawId));
      if (!agent) throw new NotFoundError('Agent');
      return agent;
    },

    /** The owner's newest agent with exactly that name. */
    async getByName(owner: Owner, name: string): Promise<AgentRecord> {
      const agent = await repo.findNewestByName(owner, name);
      if (!agent) throw new NotFoundError('Agent');
      return agent;
    },

    list: (owner: Owner, skip: number, limit: number) => repo.list(owner, skip, limit),

    /** PUT semantics: the body replaces every client-settable field. `kind` restricts which agents qualify. */
    async replace(owner: Owner, rawId: string, input: AgentInput, kind?: AgentKind): Promise<void> {
      if (!(await repo.replace(owner, parseAgentId(rawId), kind, input, clock()))) throw new NotFoundError('Agent');
    },

    async delete(owner: Owner, rawId: string): Promise<void> {
      if (!(await repo.delete(owner, parseAgentId(rawId)))) throw new NotFoundError('Agent');
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
