import { isObjectIdHex, modelFor, mongoose, type Connection } from '@platform/db';
import type { Logger } from '@platform/logger';
import { ROOT_CONTEXT, withContext } from '@platform/tracing';

/** Where a kind of run target keeps its statistics. */
export interface StatsFields {
  collection: string;
  count: string;
  lastAt: string;
  success: string;
}

export const WEBHOOK_STATS: StatsFields = {
  collection: 'webhooks',
  count: 'trigger_count',
  lastAt: 'last_triggered_at',
  success: 'last_trigger_success',
};

export const SCHEDULE_STATS: StatsFields = {
  collection: 'schedules',
  count: 'run_count',
  lastAt: 'last_run_at',
  success: 'last_run_success',
};

interface Pending {
  accepted: number;
  lastTriggeredAt: Date | null;
  success: boolean | null;
}

export interface RunStats {
  /** Counts an accepted trigger or a started fire (count + 1, last-at). Returns at once. */
  accepted(targetId: string, at: Date): void;
  /** Records how the latest run ended (last success). Returns at once. */
  outcome(targetId: string, success: boolean): void;
  /** A whole run in one write, when it ends: count + 1, last-at = when it started, last success. Returns at once. */
  ran(targetId: string, startedAt: Date, success: boolean): void;
  /** Writes everything pending; for shutdown and tests. */
  flush(): Promise<void>;
}

/** Webhook trigger statistics (kept as its own name: the trigger path and its tests speak of webhooks). */
export type WebhookStats = RunStats;

/**
 * Run statistics (of webhooks or schedules) written off the request path and coalesced per target: each target gets
 * one `updateOne` with a `$inc` carrying the sum of what arrived, at most one in flight and at most one started per
 * `minIntervalMs` (the first after a quiet spell goes at once). A busy target costs one write a second, not one per
 * run: a burst would otherwise queue every request behind writes of one document. A failed write is kept and
 * retried. What is pending when a process dies uncleanly is lost: the counters are statistics (at most
 * `minIntervalMs` behind); the executions are the record.
 */
export function createRunStats(
  conn: Connection,
  logger: Logger,
  fields: StatsFields,
  retryMs = 500,
  minIntervalMs = 1_000,
): RunStats {
  // Only the statistics fields; the scheduler owns the rest of the collection.
  const schema = new mongoose.Schema<Record<string, unknown>>(
    { [fields.count]: Number, [fields.lastAt]: Date, [fields.success]: Boolean },
    { strict: false, versionKey: false },
  );
  const Target = modelFor(conn, `${fields.collection}-stats`, schema, fields.collection);
  const pending = new Map<string, Pending>();
  const inFlight = new Map<string, Promise<void>>();
  /** When each target's last write started (pruned of entries past the interval when it grows). */
  const lastStart = new Map<string, number>();
  const timers = new Map<string, NodeJS.Timeout>();

  /** Writes `id`'s pending sum now, or when its interval since the last write has passed. */
  function schedule(id: string): void {
    if (inFlight.has(id) || timers.has(id)) return; // the write in flight, or the timer, takes it on
    const wait = (lastStart.get(id) ?? -Infinity) + minIntervalMs - Date.now();
    // A write sums many runs' counts: it belongs to none of their traces (and costs no spans).
    if (wait <= 0) {
      void withContext(ROOT_CONTEXT, () => write(id));
      return;
    }
    const timer = withContext(ROOT_CONTEXT, () =>
      setTimeout(() => {
        timers.delete(id);
        void write(id);
      }, wait),
    );
    timer.unref();
    timers.set(id, timer);
  }

  function noteStart(id: string): void {
    const now = Date.now();
    if (lastStart.size >= 10_000) for (const [k, at] of lastStart) if (at + minIntervalMs <= now) lastStart.delete(k);
    lastStart.set(id, now);
  }

  function merge(id: string, p: Pending): void {
    const cur = pending.get(id) ?? { accepted: 0, lastTriggeredAt: null, success: null };
    cur.accepted += p.accepted;
    if (p.lastTriggeredAt && (!cur.lastTriggeredAt || p.lastTriggeredAt > cur.lastTriggeredAt))
      cur.lastTriggeredAt = p.lastTriggeredAt;
    if (p.success !== null) cur.success = p.success;
    pending.set(id, cur);
  }

  function write(id: string): Promise<void> {
    const existing = inFlight.get(id);
    if (existing) return existing;
    const p = pending.get(id);
    if (!p) return Promise.resolve();
    pending.delete(id);
    noteStart(id);
    const $set: Record<string, unknown> = {};
    if (p.lastTriggeredAt) $set[fields.lastAt] = p.lastTriggeredAt;
    if (p.success !== null) $set[fields.success] = p.success;
    const update = {
      ...(p.accepted ? { $inc: { [fields.count]: p.accepted } } : {}),
      ...(Object.keys($set).length ? { $set } : {}),
    };
    const run = Target.updateOne({ _id: new mongoose.Types.ObjectId(id) }, update)
      .then(
        () => undefined,
        async (err: unknown) => {
          logger.warn('run stats write failed; retrying', {
            collection: fields.collection,
            id,
            err: (err as Error).message,
          });
          merge(id, p);
          await new Promise((r) => setTimeout(r, retryMs).unref());
        },
      )
      .finally(() => {
        inFlight.delete(id);
        if (pending.has(id)) schedule(id);
      });
    inFlight.set(id, run);
    return run;
  }

  return {
    accepted(targetId, at) {
      if (!isObjectIdHex(targetId)) return;
      merge(targetId, { accepted: 1, lastTriggeredAt: at, success: null });
      schedule(targetId);
    },
    outcome(targetId, success) {
      if (!isObjectIdHex(targetId)) return;
      merge(targetId, { accepted: 0, lastTriggeredAt: null, success });
      schedule(targetId);
    },
    ran(targetId, startedAt, success) {
      if (!isObjectIdHex(targetId)) return;
      merge(targetId, { accepted: 1, lastTriggeredAt: startedAt, success });
      schedule(targetId);
    },
    async flush() {
      for (const [id, timer] of timers) {
        clearTimeout(timer);
        timers.delete(id);
      }
      for (let i = 0; i < 100 && (pending.size > 0 || inFlight.size > 0); i++) {
        await Promise.all([...new Set([...pending.keys(), ...inFlight.keys()])].map((id) => write(id)));
      }
    },
  };
}

export const createWebhookStats = (conn: Connection, logger: Logger): RunStats =>
  createRunStats(conn, logger, WEBHOOK_STATS);
export const createScheduleStats = (conn: Connection, logger: Logger): RunStats =>
  createRunStats(conn, logger, SCHEDULE_STATS);
