import { atomicUpdateOne, isObjectIdHex, modelFor, mongoose, type Connection } from '@platform/db';
import type { Logger } from '@platform/logger';

interface StatsDoc {
  _id: mongoose.Types.ObjectId;
  trigger_count: number;
  last_triggered_at: Date | null;
  last_trigger_success: boolean | null;
}

// Only the statistics fields; the scheduler owns the rest of the webhooks collection.
const schema = new mongoose.Schema<StatsDoc>(
  { trigger_count: Number, last_triggered_at: Date, last_trigger_success: Boolean },
  { strict: false, versionKey: false },
);

interface Pending {
  accepted: number;
  lastTriggeredAt: Date | null;
  success: boolean | null;
}

export interface WebhookStats {
  /** Counts an accepted trigger (trigger_count + 1, last_triggered_at). Returns at once. */
  accepted(webhookId: string, at: Date): void;
  /** Records how the latest run ended (last_trigger_success). Returns at once. */
  outcome(webhookId: string, success: boolean): void;
  /** Writes everything pending; for shutdown and tests. */
  flush(): Promise<void>;
}

/**
 * Webhook statistics written off the request path and coalesced per webhook: however many triggers arrive at
 * once, each webhook gets one atomic `$inc` in flight at a time carrying the sum. A burst on one webhook would
 * otherwise queue every request behind a per-document write (FerretDB serialises them through revision claims).
 * A failed write is kept and retried. What is pending when a process dies uncleanly is lost: the counters are
 * statistics; the executions are the record.
 */
export function createWebhookStats(conn: Connection, logger: Logger, retryMs = 500): WebhookStats {
  const Webhook = modelFor(conn, 'WebhookStats', schema, 'webhooks');
  const pending = new Map<string, Pending>();
  const inFlight = new Map<string, Promise<void>>();

  function merge(id: string, p: Pending): void {
    const cur = pending.get(id) ?? { accepted: 0, lastTriggeredAt: null, success: null };
    cur.accepted += p.accepted;
    if (p.lastTriggeredAt && (!cur.lastTriggeredAt || p.lastTriggeredAt > cur.lastTriggeredAt)) cur.lastTriggeredAt = p.lastTriggeredAt;
    if (p.success !== null) cur.success = p.success;
    pending.set(id, cur);
  }

  function write(id: string): Promise<void> {
    const existing = inFlight.get(id);
    if (existing) return existing;
    const p = pending.get(id);
    if (!p) return Promise.resolve();
    pending.delete(id);
    const $set: Record<string, unknown> = {};
    if (p.lastTriggeredAt) $set.last_triggered_at = p.lastTriggeredAt;
    if (p.success !== null) $set.last_trigger_success = p.success;
    const update = { ...(p.accepted ? { $inc: { trigger_count: p.accepted } } : {}), ...(Object.keys($set).length ? { $set } : {}) };
    const run = atomicUpdateOne(Webhook, { _id: new mongoose.Types.ObjectId(id) }, update)
      .then(
        () => undefined,
        async (err: unknown) => {
          logger.warn('webhook stats write failed; retrying', { webhook_id: id, err: (err as Error).message });
          merge(id, p);
          await new Promise((r) => setTimeout(r, retryMs).unref());
        },
      )
      .finally(() => {
        inFlight.delete(id);
        if (pending.has(id)) void write(id);
      });
    inFlight.set(id, run);
    return run;
  }

  return {
    accepted(webhookId, at) {
      if (!isObjectIdHex(webhookId)) return;
      merge(webhookId, { accepted: 1, lastTriggeredAt: at, success: null });
      void write(webhookId);
    },
    outcome(webhookId, success) {
      if (!isObjectIdHex(webhookId)) return;
      merge(webhookId, { accepted: 0, lastTriggeredAt: null, success });
      void write(webhookId);
    },
    async flush() {
      for (let i = 0; i < 100 && (pending.size > 0 || inFlight.size > 0); i++) {
        await Promise.all([...new Set([...pending.keys(), ...inFlight.keys()])].map((id) => write(id)));
      }
    },
  };
}
