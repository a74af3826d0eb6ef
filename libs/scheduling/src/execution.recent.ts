import type { Model, Owner } from '@platform/db';

import type { ExecutionDoc } from './execution.model';
import type { Page } from './execution.pages';
import { byKeyDesc } from './execution.series';
import type { ExecutionKind, ExecutionStatus } from './execution.types';

const DAY_MS = 24 * 3600 * 1000;
/** Day lookups in flight at once. */
const PARALLEL = 4;
/** The widest window, in UTC days: 720 hours span at most 31. */
export const MAX_RECENT_DAYS = 32;

/** The recent-list keys of a run: its owner and kind per UTC day, and the same with its agent. */
export function dayKeysOf(owner: Owner, kind: ExecutionKind, agentId: string | null | undefined, at: Date): string[] {
  const day = Math.floor(at.getTime() / DAY_MS);
  const base = `${owner.user_id}|${owner.org_id}|${kind}`;
  return agentId ? [`${base}|${day}`, `${base}|a:${agentId}|${day}`] : [`${base}|${day}`];
}

export interface RecentFilter {
  kinds: ExecutionKind[];
  agent_id?: string;
  statuses?: ExecutionStatus[];
  /** `triggered_at` ≥ from and < to. */
  from: Date;
  to?: Date;
}

/**
 * An owner's recent runs of some kinds: one indexed equality per UTC day of the window (at most 31 for 720 hours),
 * so the cost follows the runs of those days, never the owner's whole history. A single wanted status is part of
 * the lookup (both equalities are pushed down); several are filtered here.
 */
export async function readRecent(
  Execution: Model<ExecutionDoc>,
  owner: Owner,
  f: RecentFilter,
  now: Date,
  skip: number,
  limit: number,
): Promise<Page> {
  if (f.statuses?.length === 0) return { items: [], total: 0 };
  const last = Math.min(f.to ? f.to.getTime() - 1 : now.getTime() + DAY_MS, now.getTime() + DAY_MS);
  const firstDay = Math.floor(f.from.getTime() / DAY_MS);
  const lastDay = Math.floor(last / DAY_MS);
  if (lastDay - firstDay + 1 > MAX_RECENT_DAYS)
    throw new RangeError(`recent lists span at most ${MAX_RECENT_DAYS} days`);
  const keys: string[] = [];
  for (const kind of f.kinds) {
    for (let day = firstDay; day <= lastDay; day++) {
      const [all, byAgent] = dayKeysOf(owner, kind, f.agent_id, new Date(day * DAY_MS));
      keys.push((f.agent_id ? byAgent : all) as string);
    }
  }
  const one = f.statuses?.length === 1 ? { status: f.statuses[0] } : {};
  const found: ExecutionDoc[] = [];
  for (let i = 0; i < keys.length; i += PARALLEL) {
    const parts = await Promise.all(
      keys.slice(i, i + PARALLEL).map((key) => Execution.find({ day_keys: key, ...one }).lean<ExecutionDoc[]>()),
    );
    found.push(...parts.flat());
  }
  const matches = found
    .filter((d) => d.user_id === owner.user_id && d.org_id === owner.org_id)
    .filter((d) => d.triggered_at >= f.from && (!f.to || d.triggered_at < f.to))
    .filter((d) => !f.statuses || f.statuses.includes(d.status))
    .sort(byKeyDesc);
  return { items: matches.slice(skip, skip + limit), total: matches.length };
}
