import Joi from 'joi';
import { pageQuery } from '@platform/http';
import { presentExecution, type ExecutionKind, type ExecutionQuery, type ExecutionRepository, type Owner } from '@platform/scheduling';

/** `?skip&limit&success` of one webhook's or schedule's executions. */
export const logsQuery = Joi.object({ ...pageQuery, success: Joi.boolean() });

/** `?agent_id&success&hours&skip&limit` of the recent executions of one kind. */
export const recentQuery = Joi.object({
  ...pageQuery,
  success: Joi.boolean(),
  agent_id: Joi.string().min(1).max(100),
  hours: Joi.number().integer().min(1).max(720).default(24),
});

export interface LogsQuery {
  skip: number;
  limit: number;
  success?: boolean;
}

export interface RecentQuery extends LogsQuery {
  agent_id?: string;
  hours: number;
}

/** The repository filter of a recent-executions request. */
export const recentFilter = (kind: ExecutionKind, q: RecentQuery, now: Date): ExecutionQuery => ({
  kinds: [kind],
  agent_id: q.agent_id,
  success: q.success,
  since: new Date(now.getTime() - q.hours * 3600_000),
  skip: q.skip,
  limit: q.limit,
});

/** `{executions, total}` of the owner's executions matching `q`, newest first. */
export async function listExecutions(repo: ExecutionRepository, owner: Owner, q: ExecutionQuery) {
  const { items, total } = await repo.list(owner, q);
  return { executions: items.map(presentExecution), total };
}
