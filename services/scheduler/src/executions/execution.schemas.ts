import Joi from 'joi';

import { pageQuery } from '@platform/http';
import { EXECUTION_STATUSES, type ExecutionStatus } from '@platform/scheduling';

/**
 * `status`: one or more of the five, repeated (`?status=a&status=b`) or comma-separated (`?status=a,b`); any other
 * value is a 422 on `["query","status"]` (never silently ignored).
 */
const statusList = Joi.any().custom((value: unknown, helpers) => {
  const parts = (Array.isArray(value) ? (value as unknown[]) : [value]).flatMap((v): unknown[] =>
    typeof v === 'string' ? v.split(',') : [v],
  );
  const out = new Set<ExecutionStatus>();
  for (const p of parts) {
    const s = typeof p === 'string' ? p.trim() : p;
    if (!EXECUTION_STATUSES.includes(s as ExecutionStatus))
      return helpers.error('any.only', { valids: EXECUTION_STATUSES });
    out.add(s as ExecutionStatus);
  }
  return [...out];
});

/** An ISO 8601 instant: a date (UTC midnight) or a date-time with `Z` or an offset; a bare local time is refused. */
const INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;
const instant = Joi.any().custom((value: unknown, helpers) => {
  const ms = typeof value === 'string' && INSTANT.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? helpers.error('date.base') : new Date(ms);
});

/** `status`, `from`, `to` (on `triggered_at`: from inclusive, to exclusive; from after to → 422 on `to`). */
const filters = {
  success: Joi.boolean(),
  status: statusList,
  from: instant,
  to: instant.custom((to: Date, helpers) => {
    const from = (helpers.state.ancestors as { from?: unknown }[])[0]?.from;
    return from instanceof Date && from > to ? helpers.error('date.min', { limit: from }) : to;
  }),
};

/** `?skip&limit&success&status&from&to` of one webhook's or schedule's executions. */
export const logsQuery = Joi.object({ ...pageQuery, ...filters });

/** The same, plus `agent_id` and `hours`, of the recent executions of one kind. */
export const recentQuery = Joi.object({
  ...pageQuery,
  ...filters,
  agent_id: Joi.string().min(1).max(100),
  hours: Joi.number().integer().min(1).max(720).default(24),
});

export interface LogsQuery {
  skip: number;
  limit: number;
  success?: boolean;
  status?: ExecutionStatus[];
  from?: Date;
  to?: Date;
}

export interface RecentQuery extends LogsQuery {
  agent_id?: string;
  hours: number;
}
