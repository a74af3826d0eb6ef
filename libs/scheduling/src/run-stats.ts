import { BULK_MAX, isObjectIdHex, modelFor, mongoose, writeErrorsOf, type Connection } from '@platform/db';
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
 * Run statistics (of webhooks or schedules) written off the request path and coalesced: what arrives is summed per
 * target, and every target's sum goes in one unordered bulk write (`updateOne` with `$inc` per target, BULK_MAX to a
 * command), at most one in flight and at most one started per `minIntervalMs` (the first after a quiet spell goes at
 * once). A process makes one write a second however many targets run: a thousand schedules firing each minute cost a
 * command a second, not one per fire, and a burst on one webhook does not queue behind writes of one document. A
 * failed write is kept and retried. What is pending when a process dies uncleanly is lost: the counters are
 * statistics (at most `minIntervalMs` behind); the executions are the record.
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
  let inFlight: Promise<void> | null = null;
  let lastStart = -Infinity;
  let timer: NodeJS.Timeout | null = null;

  /** Writes what is pending now, or when the interval since the last write has passed. */
  function schedule(): void {
    if (inFlight || timer) return; // the write in flight, or the timer, takes it on
    const wait = lastStart + minIntervalMs - Date.now();
    // A write sums many runs' counts: it belongs to none of their traces (and costs no spans).
    if (wait <= 0) {
      void withContext(ROOT_CONTEXT, write);
      return;
    }
    timer = withContext(ROOT_CONTEXT, () =>
      setTimeout(() => {
        timer = null;
        void write();
      }, wait),
    );
    timer.unref();
  }

  function merge(id: string, p: Pending): void {
    const cur = pending.get(id) ?? { accepted: 0, lastTriggeredAt: null, success: null };
    cur.accepted += p.accepted;
    if (p.lastTriggeredAt && (!cur.lastTriggeredAt || p.lastTriggeredAt > cur.lastTriggeredAt))
      cur.lastTriggeredAt = p.lastTriggeredAt;
    if (p.success !== null) cur.success = p.success;
    pending.set(id, cur);
  }

  function updateOf(p: Pending) {
    const $set: Record<string, unknown> = {};
    if (p.lastTriggeredAt) $set[fields.lastAt] = p.lastTriggeredAt;
    if (p.success !== null) $set[fields.success] = p.success;
    return {
      ...(p.accepted ? { $inc: { [fields.count]: p.accepted } } : {}),
      ...(Object.keys($set).length ? { $set } : {}),
    };
  }

  /** One command for up to BULK_MAX targets; the targets whose update failed. */
  async function writeChunk(chunk: [string, Pending][]): Promise<[string, Pending][]> {
    const ops = chunk.map(([id, p]) => ({
      updateOne: { filter: { _id: new mongoose.Types.ObjectId(id) }, update: updateOf(p) },
    }));
    try {
      await Target.collection.bulkWrite(ops, { ordered: false });
      return [];
    } catch (err) {
      const perOp = writeErrorsOf(err);
      const failed = perOp?.length ? perOp.map((w) => chunk[w.index]).filter((c) => c !== undefined) : chunk;
      logger.warn('run stats write failed; retrying', {
        collection: fields.collection,
        targets: failed.length,
        err: (err as Error).message,
      });
      return failed;
    }
  }

  function write(): Promise<void> {
    if (inFlight) return inFlight;
    if (pending.size === 0) return Promise.resolve();
    const batch = [...pending];
    pending.clear();
    lastStart = Date.now();
    inFlight = (async () => {
      const failed: [string, Pending][] = [];
      for (let i = 0; i < batch.length; i += BULK_MAX) failed.push(...(await writeChunk(batch.slice(i, i + BULK_MAX))));
      if (failed.length === 0) return;
      for (const [id, p] of failed) merge(id, p);
      await new Promise((r) => setTimeout(r, retryMs).unref());
    })().finally(() => {
      inFlight = null;
      if (pending.size > 0) schedule();
    });
    return inFlight;
  }

  const add = (targetId: string, p: Pending) => {
    if (!isObjectIdHex(targetId)) return;
    merge(targetId, p);
    schedule();
  };
  return {
    accepted: (targetId, at) => add(targetId, { accepted: 1, lastTriggeredAt: at, success: null }),
    outcome: (targetId, success) => add(targetId, { accepted: 0, lastTriggeredAt: null, success }),
    ran: (targetId, startedAt, success) => add(targetId, { accepted: 1, lastTriggeredAt: startedAt, success }),
    async flush() {
      if (timer) clearTimeout(timer);
      timer = null;
      for (let i = 0; i < 100 && (pending.size > 0 || inFlight); i++) await (inFlight ?? write());
    },
  };
}

export const createWebhookStats = (conn: Connection, logger: Logger): RunStats =>
  createRunStats(conn, logger, WEBHOOK_STATS);
export const createScheduleStats = (conn: Connection, logger: Logger): RunStats =>
  createRunStats(conn, logger, SCHEDULE_STATS);
