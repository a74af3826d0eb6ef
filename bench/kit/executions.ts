import { mongoose } from '@platform/db';
import type { ExecutionStatus } from '@platform/scheduling';

/** 96% succeeded, 3% failed, 1% skipped: a healthy webhook. */
export const statusOf = (i: number): ExecutionStatus =>
  i % 100 < 3 ? 'failed' : i % 100 === 3 ? 'skipped' : 'succeeded';

/** One execution as the repository stores it, the `seq`-th of its webhook's. */
export function executionDoc(webhookId: string, owner: { user_id: string; org_id: string }, seq: number, at: Date) {
  const status = statusOf(seq);
  const id = new mongoose.Types.ObjectId();
  const ended = status !== 'skipped';
  return {
    _id: id,
    kind: 'webhook',
    webhook_id: webhookId,
    schedule_id: null,
    agent_id: '7',
    ...owner,
    session_id: `execution-${id.toHexString()}`,
    status,
    success: status === 'skipped' ? null : status === 'succeeded',
    attempt: ended ? 1 : 0,
    max_attempts: 3,
    scheduled_for: null,
    triggered_at: at,
    started_at: ended ? at : null,
    finished_at: at,
    duration_ms: ended ? 850 : 0,
    payload: { event: 'order.created', order: seq, note: 'x'.repeat(100) },
    response_status: ended ? 200 : null,
    response_output: ended ? `Handled order ${seq}: the customer was notified and the stock was updated.` : null,
    error_message: status === 'failed' ? 'LLM provider error: 502' : null,
    fire_key: id.toHexString(),
    retry_delay_ms: null,
    recoveries: 0,
  };
}

/**
 * Stores `n` ended executions of 900 webhooks of 100 other users over the last ten days, as the repository stores
 * them, in batches of 500 (pass a connection without a socket timeout); returns how many were stored.
 */
export async function preseedExecutions(
  coll: { insertMany(docs: object[], o: object): Promise<{ insertedCount: number }> },
  n: number,
): Promise<number> {
  const now = Date.now();
  const span = 10 * 24 * 3600_000;
  const others = Array.from({ length: 900 }, (_, w) => `${(w + 1).toString(16).padStart(24, 'f')}`);
  const seqs = new Array<number>(others.length).fill(0);
  let stored = 0;
  for (let i = 0; i < n; i += 500) {
    const docs = Array.from({ length: Math.min(500, n - i) }, (_, j) => {
      const w = (i + j) % others.length;
      return executionDoc(
        others[w]!,
        { user_id: `other-${w % 100}`, org_id: 'other' },
        seqs[w]!++,
        new Date(now - span + Math.floor(((i + j) * span) / n)),
      );
    });
    stored += (await coll.insertMany(docs, { ordered: false })).insertedCount;
  }
  return stored;
}
