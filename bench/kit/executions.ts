import { mongoose } from '@platform/db';
import { bucketIndexOf, bucketKey, dayKeysOf, seriesKeyOf, slotKey, type ExecutionStatus } from '@platform/scheduling';

/** 96% succeeded, 3% failed, 1% skipped: a healthy webhook. */
export const statusOf = (i: number): ExecutionStatus =>
  i % 100 < 3 ? 'failed' : i % 100 === 3 ? 'skipped' : 'succeeded';

/** One execution as the repository stores it, at position `seq` of its webhook's list. */
export function executionDoc(webhookId: string, owner: { user_id: string; org_id: string }, seq: number, at: Date) {
  const status = statusOf(seq);
  const series = seriesKeyOf(owner, webhookId);
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
    series,
    seq,
    slot: slotKey(series, seq),
    bucket: bucketKey(series, bucketIndexOf(seq)),
    day_keys: dayKeysOf(owner, 'webhook', '7', at),
  };
}
