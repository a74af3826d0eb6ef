import { ownerKey } from '@platform/db';
import { plainCopy, type ReadCache } from '@platform/queue';

import type { AgentRepository } from './agent.repository';
import type { AgentRecord } from './agent.types';

/**
 * The agent repository with `get` (read by every run) cached; replacing, changing or deleting an agent drops it here and in
 * every replica. Callers get their own copy, so nothing a run does to its agent reaches the cache.
 */
export function withAgentCache(repo: AgentRepository, cache: ReadCache<AgentRecord>): AgentRepository {
  return {
    ...repo,
    async get(owner, id) {
      const agent = await cache.get(String(id), ownerKey(owner), () => repo.get(owner, id));
      return agent && plainCopy(agent);
    },
    replace: (owner, id, kind, input, now) => cache.changed(String(id), repo.replace(owner, id, kind, input, now)),
    patch: (owner, id, kind, patch, now) => cache.changed(String(id), repo.patch(owner, id, kind, patch, now)),
    delete: (owner, id) => cache.changed(String(id), repo.delete(owner, id)),
  };
}
