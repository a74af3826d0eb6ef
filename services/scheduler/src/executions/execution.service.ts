import type { Owner } from '@platform/db';
import {
  presentExecution,
  type ExecutionKind,
  type ExecutionQuery,
  type ExecutionRepository,
} from '@platform/scheduling';

import type {
  ExecutionList,
  ExecutionLogsQuery as LogsQuery,
  ExecutionRecentQuery as RecentQuery,
} from './execution.schemas.types';

/** Whose runs a log lists: one webhook's or one schedule's. */
export type RunParent = { webhook_id: string } | { schedule_id: string };

export interface ExecutionServiceDeps {
  repo: ExecutionRepository;
  clock: () => Date;
}

const filtersOf = (q: LogsQuery) => ({
  success: q.success,
  statuses: q.status,
  from: q.from,
  to: q.to,
  skip: q.skip,
  limit: q.limit,
});

/** Listing, filtering and paging of webhook and schedule runs: `{executions, total}`, newest first. */
export function createExecutionService(deps: ExecutionServiceDeps) {
  async function page(owner: Owner, q: ExecutionQuery): Promise<ExecutionList> {
    const { items, total } = await deps.repo.list(owner, q);
    return { executions: items.map(presentExecution), total };
  }

  return {
    /** The owner's runs of one kind within the last `hours`, optionally of one agent. */
    recent: (owner: Owner, kind: ExecutionKind, q: RecentQuery) =>
      page(owner, {
        ...filtersOf(q),
        kinds: [kind],
        agent_id: q.agent_id,
        since: new Date(deps.clock().getTime() - q.hours * 3600_000),
      }),

    /**
     * One webhook's or schedule's runs. `assertOwned` (404 when the parent is not the caller's) runs at the same time
     * as the read: a list is keyed by its owner, so another owner's parent lists nothing anyway.
     */
    async of(owner: Owner, parent: RunParent, q: LogsQuery, assertOwned: () => Promise<unknown>) {
      const [, result] = await Promise.all([assertOwned(), page(owner, { ...parent, ...filtersOf(q) })]);
      return result;
    },
  };
}

export type ExecutionService = ReturnType<typeof createExecutionService>;
