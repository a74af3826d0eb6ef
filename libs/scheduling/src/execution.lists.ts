import { findKeysetPage, findPage, mongoose, ownerFilter, type Owner, type SortKeys } from '@platform/db';

import { runQueueOf } from './agent-runs.queue';
import type { ExecutionDoc, ExecutionModel } from './execution.model';
import { toRecord } from './execution.record';
import { EXECUTION_STATUSES, type ExecutionKind, type ExecutionRecord, type ExecutionStatus } from './execution.types';
import type { UnfinishedRun } from './run-recovery';

/**
 * A list: one webhook's or schedule's runs (`webhook_id` / `schedule_id`; the caller has checked it owns it), or an
 * owner's recent runs of some `kinds` since `since` (optionally of one agent).
 */
export interface ExecutionQuery {
  webhook_id?: string;
  schedule_id?: string;
  agent_id?: string;
  kinds?: ExecutionKind[];
  success?: boolean;
  /** Any of these statuses (with `success`: both must hold). */
  statuses?: ExecutionStatus[];
  since?: Date;
  /** `triggered_at` ≥ from (inclusive) and < to (exclusive). */
  from?: Date;
  to?: Date;
  skip: number;
  limit: number;
}

/** The lists' order: newest first by `triggered_at`, then by id. */
export const NEWEST_RUN_FIRST: SortKeys = [
  ['triggered_at', -1],
  ['_id', -1],
];

/** The statuses a query wants (`success` true is `succeeded`, false is `failed`); every status when unfiltered. */
function wantedStatuses(q: ExecutionQuery): ExecutionStatus[] {
  let wanted = q.statuses ? EXECUTION_STATUSES.filter((s) => q.statuses?.includes(s)) : [...EXECUTION_STATUSES];
  if (q.success !== undefined) wanted = wanted.filter((s) => s === (q.success ? 'succeeded' : 'failed'));
  return wanted;
}

/**
 * The filter of a list. Its statuses are always named (all five when the caller filters none), so that the same
 * index (parent or owner and kind, then status, then the order) serves a list with and without a status filter.
 */
export function listFilter(owner: Owner, q: ExecutionQuery): Record<string, unknown> {
  const range: Record<string, Date> = {};
  const from = q.since && (!q.from || q.since > q.from) ? q.since : q.from;
  if (from) range.$gte = from;
  if (q.to) range.$lt = q.to;
  const parent = {
    ...(q.webhook_id !== undefined ? { webhook_id: q.webhook_id } : { schedule_id: q.schedule_id }),
    ...ownerFilter(owner),
  };
  const scope =
    q.webhook_id !== undefined || q.schedule_id !== undefined
      ? parent
      : {
          ...ownerFilter(owner),
          kind: { $in: q.kinds ?? [] },
          ...(q.agent_id !== undefined ? { agent_id: q.agent_id } : {}),
        };
  return {
    ...scope,
    status: { $in: wantedStatuses(q) },
    ...(Object.keys(range).length ? { triggered_at: range } : {}),
  };
}

/** One page of a list, newest first, with the total of all matches. */
export function listPage(
  Execution: ExecutionModel,
  owner: Owner,
  q: ExecutionQuery,
): Promise<{ items: ExecutionRecord[]; total: number }> {
  return findPage(Execution, listFilter(owner, q), q, toRecord, NEWEST_RUN_FIRST);
}

/** Where the recovery walk stands: the status it is at and the last run it returned of it. */
interface UnfinishedCursor {
  status: 'queued' | 'running';
  after?: unknown[];
}

const encode = (c: UnfinishedCursor) => JSON.stringify([c.status, c.after ?? null]);
function decode(cursor: string | undefined): UnfinishedCursor {
  if (!cursor) return { status: 'queued' };
  const [status, after] = JSON.parse(cursor) as ['queued' | 'running', [string, string] | null];
  return { status, after: after ? [new Date(after[0]), new mongoose.Types.ObjectId(after[1])] : undefined };
}

/**
 * Runs not ended, for the recovery rule (run-recovery.ts): queued since before `queuedBefore`, then running since
 * before `runningBefore`, oldest first, keyset-paged by (time, id) within each status.
 */
export async function unfinishedPage(
  Execution: ExecutionModel,
  q: { queuedBefore: Date; runningBefore: Date; limit: number; cursor?: string },
): Promise<{ runs: UnfinishedRun[]; next?: string }> {
  let at = decode(q.cursor);
  const runs: UnfinishedRun[] = [];
  for (;;) {
    const field = at.status === 'queued' ? 'triggered_at' : 'started_at';
    const before = at.status === 'queued' ? q.queuedBefore : q.runningBefore;
    const page = await findKeysetPage<ExecutionDoc>(
      Execution,
      { status: at.status, [field]: { $lt: before } },
      [
        [field, 1],
        ['_id', 1],
      ],
      q.limit - runs.length,
      at.after,
      { kind: 1, recoveries: 1, status: 1, [field]: 1 },
    );
    for (const d of page.items)
      runs.push({
        id: d._id.toHexString(),
        status: at.status,
        recoveries: d.recoveries ?? 0,
        queue: runQueueOf(d.kind),
      });
    if (page.next) return { runs, next: encode({ status: at.status, after: page.next }) };
    if (at.status === 'running') return { runs };
    at = { status: 'running' };
    if (runs.length >= q.limit) return { runs, next: encode(at) };
  }
}
