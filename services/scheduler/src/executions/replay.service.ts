import type { Owner } from '@platform/db';
import { ConflictError, NotFoundError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type {
  CallbackTarget,
  ExecutionRecord,
  ExecutionRepository,
  ExecutionStatus,
  IdempotencyStore,
  ScheduleKind,
} from '@platform/scheduling';

import { ENDED_STATUSES } from './execution.schemas';
import type { ExecutionReplayAccepted, ExecutionReplayBody, ExecutionReplayResult } from './execution.schemas.types';

/** Whose runs a replay re-runs: a webhook's, or a schedule's of one kind. */
export type ReplayParent = { webhook_id: string } | { schedule_id: string; kind: ScheduleKind };

export interface ReplayServiceDeps {
  executions: Pick<ExecutionRepository, 'list' | 'get' | 'createOnce'>;
  /** Remembers each original's first replay for 24 h (scope `replay:<original id>`). */
  idempotency: Pick<IdempotencyStore, 'claim'>;
  /**
   * The caller's webhook (404 when it is not the caller's): its state decides whether replays may run, and its
   * callback is the replays' (a replay is a new run: it takes the target its webhook has now).
   */
  webhook: (owner: Owner, id: string) => Promise<{ is_active: boolean; callback: CallbackTarget | null }>;
  /** The caller's schedule of that kind's callback target (404 when it is not the caller's), the replays'. */
  schedule: (owner: Owner, kind: ScheduleKind, id: string) => Promise<CallbackTarget | null>;
  /** Puts a stored execution on its run queue, as a trigger does; a failure leaves it to the outbox. */
  enqueue: (exec: ExecutionRecord) => Promise<unknown>;
  /** A new execution id (an ObjectId's hex): the replay claims its original's key with it before it is stored. */
  newId: () => string;
  clock: () => Date;
  logger: Logger;
}

/** Replays stored and enqueued at once within one bulk call (each is a key insert, an execution insert, a job add). */
const REPLAY_PARALLEL = 16;

const isEnded = (s: ExecutionStatus) => (ENDED_STATUSES as readonly ExecutionStatus[]).includes(s);
const scopeOf = (originalId: string) => `replay:${originalId}`;
const KEY = 'replay';

/** Runs `work` over `items`, at most `parallel` at once, results in the items' order. */
async function mapParallel<T, R>(items: T[], parallel: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, lane));
  return out;
}

/** Confirms the parent is the caller's (and, when `runs`, that it may run); the callback target of its new runs. */
async function assertParent(
  deps: ReplayServiceDeps,
  owner: Owner,
  parent: ReplayParent,
  runs: boolean,
): Promise<CallbackTarget | null> {
  if ('webhook_id' in parent) {
    const w = await deps.webhook(owner, parent.webhook_id);
    if (runs && !w.is_active) throw new ConflictError('Webhook is paused');
    return w.callback;
  }
  return deps.schedule(owner, parent.kind, parent.schedule_id);
}

/** Whether `original` is a run of the owner's `parent`. */
function isRunOf(original: ExecutionRecord, owner: Owner, parent: ReplayParent): boolean {
  return (
    original.user_id === owner.user_id &&
    original.org_id === owner.org_id &&
    ('webhook_id' in parent
      ? original.kind === 'webhook' && original.webhook_id === parent.webhook_id
      : original.kind === (parent.kind === 'agent' ? 'agent_schedule' : 'http_schedule') &&
        original.schedule_id === parent.schedule_id)
  );
}

/** Stores the replay of `original` under `id` (null: an execution with that id exists already). */
function store(
  deps: ReplayServiceDeps,
  original: ExecutionRecord,
  id: string,
  callback: CallbackTarget | null,
  now: Date,
): Promise<ExecutionRecord | null> {
  return deps.executions.createOnce(
    {
      id,
      fire_key: id,
      kind: original.kind,
      webhook_id: original.webhook_id,
      schedule_id: original.schedule_id,
      agent_id: original.agent_id,
      user_id: original.user_id,
      org_id: original.org_id,
      payload: original.payload,
      max_attempts: original.max_attempts,
      retry_delay_ms: original.retry_delay_ms,
      replay_of: original.id,
      callback,
    },
    now,
  );
}

/** The replay of one original: a new queued execution, or the first one made within 24 h. */
async function replayOne(
  deps: ReplayServiceDeps,
  log: Logger,
  original: ExecutionRecord,
  callback: CallbackTarget | null,
  now: Date,
): Promise<{ exec: ExecutionRecord; created: boolean }> {
  const id = deps.newId();
  const holder = await deps.idempotency.claim(scopeOf(original.id), KEY, id, now);
  if (holder !== id) {
    const first = await deps.executions.get(holder);
    if (first) return { exec: first, created: false };
  }
  // Ours, or a first replay whose key was claimed but whose execution was never stored (its process stopped in
  // between): it is stored now under the id the key names, once however many calls get here.
  const exec = await store(deps, original, holder, callback, now);
  if (!exec) {
    const first = await deps.executions.get(holder);
    if (!first) throw new Error(`replay ${holder} of ${original.id} was neither stored nor found`);
    return { exec: first, created: false };
  }
  await deps
    .enqueue(exec)
    .catch((err: unknown) =>
      log.warn('replay not enqueued; left to the outbox', { execution_id: exec.id, err: (err as Error).message }),
    );
  return { exec, created: true };
}

/**
 * Replays: an ended run re-run as a new execution of the same webhook or schedule, with the original's input
 * (payload, agent, attempts) and `replay_of` naming it. One replay per original within 24 h (the idempotency store,
 * keyed by the original): replaying it again answers that first replay and runs nothing. A replay is queued as a
 * trigger is, on the same run queue (the same attempts, backoff and worker limits). A paused webhook replays
 * nothing (409, as its trigger); a schedule replays while paused (as its manual trigger runs).
 */
export function createReplayService(deps: ReplayServiceDeps) {
  const log = deps.logger.child({ module: 'replay' });

  return {
    /**
     * Replays the newest `limit` ended runs of the parent matching the filters (`status` default: every ended
     * status), or with `dry_run` only counts them. `matched` counts every match, `replayed` lists the replays made
     * (or found) in the runs' order.
     */
    async bulk(owner: Owner, parent: ReplayParent, body: ExecutionReplayBody): Promise<ExecutionReplayResult> {
      const callback = await assertParent(deps, owner, parent, !body.dry_run);
      const ids = 'webhook_id' in parent ? { webhook_id: parent.webhook_id } : { schedule_id: parent.schedule_id };
      const { items, total } = await deps.executions.list(owner, {
        ...ids,
        statuses: body.status ?? [...ENDED_STATUSES],
        from: body.from,
        to: body.to,
        skip: 0,
        limit: body.dry_run ? 1 : body.limit,
      });
      if (body.dry_run) return { matched: total };
      const now = deps.clock();
      const done = await mapParallel(items, REPLAY_PARALLEL, (r) => replayOne(deps, log, r, callback, now));
      const created = done.filter((d) => d.created).length;
      if (created > 0) log.info('bulk replay', { ...ids, matched: total, replayed: done.length, created });
      return {
        matched: total,
        created,
        replayed: done.map((d, i) => ({ execution_id: d.exec.id, replay_of: items[i]!.id })),
      };
    },

    /**
     * Replays one ended run of the parent: 202 with the new queued execution, or 200 with the first replay of it
     * made within 24 h. A run of another parent or owner is not found; one that has not ended → 409.
     */
    async one(
      owner: Owner,
      parent: ReplayParent,
      executionId: string,
    ): Promise<{ status: 200 | 202; body: ExecutionReplayAccepted }> {
      const [callback, original] = await Promise.all([
        assertParent(deps, owner, parent, true),
        deps.executions.get(executionId),
      ]);
      if (!original || !isRunOf(original, owner, parent)) throw new NotFoundError('Execution');
      if (!isEnded(original.status)) throw new ConflictError('Execution has not ended; only ended executions replay');
      const { exec, created } = await replayOne(deps, log, original, callback, deps.clock());
      return {
        status: created ? 202 : 200,
        body: { execution_id: exec.id, status: exec.status, replay_of: original.id },
      };
    },
  };
}

export type ReplayService = ReturnType<typeof createReplayService>;
