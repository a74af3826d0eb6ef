import { NotFoundError, ValidationError, type FieldError } from '@platform/errors';
import type { LimitPublisher } from '@platform/queue';

import { isKnowledgeBase, MAX_RAG_IDS, ragIdsOf } from '../inference/features/knowledge-base.config';
import type { AgentRepository } from './agent.repository';
import { DEFAULT_PAGE_LIMIT, UNPAGED_LIST_MAX } from './agent.schemas';
import type { AgentInput, AgentKind, AgentRecord, Feature, Owner } from './agent.types';

/** Whether an owner has a RAG configuration (the rag service, asked on the owner's behalf; unreachable → 503). */
export interface KnowledgeBases {
  owns(owner: Owner, ragId: string): Promise<boolean>;
}

export interface AgentServiceDeps {
  repo: AgentRepository;
  knowledgeBases: KnowledgeBases;
  clock: () => Date;
  /** Publishes `max_concurrency` for the worker on create, update and delete; unset: not published. */
  limits?: LimitPublisher;
}

const MAX_ID = Number.MAX_SAFE_INTEGER;

/** Parses a path id; anything that is not a decimal integer below 2^53 is simply an unknown agent. */
export function parseAgentId(raw: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) throw new NotFoundError('Agent');
  const id = Number(raw);
  if (id > MAX_ID) throw new NotFoundError('Agent');
  return id;
}

/**
 * 422 at `["body","features",i,"config"]` for each KNOWLEDGE_BASE feature that names no rag id, more than
 * MAX_RAG_IDS, or one the owner does not have: such an agent would fail every chat.
 */
async function checkFeatures(knowledgeBases: KnowledgeBases, owner: Owner, features: Feature[] | undefined) {
  const problems: FieldError[] = [];
  for (const [i, f] of (features ?? []).entries()) {
    if (!isKnowledgeBase(f.type)) continue;
    const loc = ['body', 'features', i, 'config'];
    const ids = ragIdsOf(f.config ?? {});
    if (ids.length === 0) {
      problems.push({
        loc,
        msg: 'A KNOWLEDGE_BASE feature needs a rag_id (config.rag_id, config.lyzr_rag.rag_id, or config.agentic_rag[] / oneshot_rag[] entries with rag_id)',
        type: 'rag_missing',
      });
      continue;
    }
    if (ids.length > MAX_RAG_IDS) {
      problems.push({
        loc,
        msg: `A KNOWLEDGE_BASE feature names at most ${MAX_RAG_IDS} rag ids`,
        type: 'rag_too_many',
      });
      continue;
    }
    const owned = await Promise.all(ids.map((id) => knowledgeBases.owns(owner, id)));
    ids
      .filter((_, n) => !owned[n])
      .forEach((id) => problems.push({ loc, msg: `RAG configuration ${id} not found`, type: 'rag_not_found' }));
  }
  if (problems.length > 0) throw new ValidationError(problems);
}

/** Agent rules: ownership, kinds, features that can run, replacement or merge on update. */
export function createAgentService({ repo, knowledgeBases, clock, limits }: AgentServiceDeps) {
  return {
    async create(owner: Owner, kind: AgentKind, input: AgentInput): Promise<AgentRecord> {
      await checkFeatures(knowledgeBases, owner, input.features);
      const agent = await repo.create(owner, kind, input, clock());
      if (input.max_concurrency != null) await limits?.publish(agent.id, input.max_concurrency);
      return agent;
    },

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

    /** A page when `skip` or `limit` is given (defaults 0 and 50); neither: every agent, up to UNPAGED_LIST_MAX. */
    list(owner: Owner, page: { skip?: number; limit?: number }) {
      const paged = page.skip !== undefined || page.limit !== undefined;
      return paged
        ? repo.list(owner, page.skip ?? 0, page.limit ?? DEFAULT_PAGE_LIMIT)
        : repo.list(owner, 0, UNPAGED_LIST_MAX);
    },

    /** PUT semantics: the body replaces every client-settable field. `kind` restricts which agents qualify. */
    async replace(owner: Owner, rawId: string, input: AgentInput, kind?: AgentKind): Promise<void> {
      const id = parseAgentId(rawId);
      await checkFeatures(knowledgeBases, owner, input.features);
      if (!(await repo.replace(owner, id, kind, input, clock()))) throw new NotFoundError('Agent');
      await limits?.publish(id, input.max_concurrency ?? null);
    },

    /** Merge semantics: only the fields sent change (an explicit null clears a nullable one). */
    async update(owner: Owner, rawId: string, patch: Partial<AgentInput>, kind?: AgentKind): Promise<void> {
      const id = parseAgentId(rawId);
      await checkFeatures(knowledgeBases, owner, patch.features);
      if (!(await repo.patch(owner, id, kind, patch, clock()))) throw new NotFoundError('Agent');
      if (patch.max_concurrency !== undefined) await limits?.publish(id, patch.max_concurrency);
    },

    async delete(owner: Owner, rawId: string): Promise<void> {
      const id = parseAgentId(rawId);
      if (!(await repo.delete(owner, id))) throw new NotFoundError('Agent');
      await limits?.publish(id, null);
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
