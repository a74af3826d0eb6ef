import { fromJsonText, iso } from '@platform/db';

import type { ExecutionDoc } from './execution.model';
import type { ExecutionRecord } from './execution.types';

const NO_DELIVERY = { attempts: 0, last_status: null, last_error: null, delivered_at: null, next_attempt_at: null };

/** The one mapping of a stored execution to the repository's record (its public object is `presentExecution`). */
export function toRecord(d: ExecutionDoc): ExecutionRecord {
  const id = d._id.toHexString();
  return {
    id,
    kind: d.kind,
    webhook_id: d.webhook_id ?? null,
    schedule_id: d.schedule_id ?? null,
    agent_id: d.agent_id ?? null,
    user_id: d.user_id,
    org_id: d.org_id,
    session_id: d.session_id ?? null,
    status: d.status,
    success: d.success ?? null,
    attempt: d.attempt ?? 0,
    max_attempts: d.max_attempts,
    scheduled_for: iso(d.scheduled_for),
    triggered_at: d.triggered_at.toISOString(),
    started_at: iso(d.started_at),
    finished_at: iso(d.finished_at),
    duration_ms: d.duration_ms ?? null,
    payload: fromJsonText(d.payload_json, d.payload),
    response_status: d.response_status ?? null,
    response_output: d.response_output ?? null,
    error_message: d.error_message ?? null,
    replay_of: d.replay_of ?? null,
    fire_key: d.fire_key ?? id,
    retry_delay_ms: d.retry_delay_ms ?? null,
    delivery: d.delivery
      ? {
          attempts: d.delivery.attempts,
          last_status: d.delivery.last_status ?? null,
          last_error: d.delivery.last_error ?? null,
          delivered_at: iso(d.delivery.delivered_at),
          next_attempt_at: iso(d.delivery.next_attempt_at),
        }
      : d.cb
        ? NO_DELIVERY
        : null,
    ...(d.cb?.url && d.cb.secret ? { callback: { url: d.cb.url, secret: d.cb.secret } } : {}),
  };
}

/** The public Execution object: the record without server-side fields. */
export function presentExecution(r: ExecutionRecord) {
  const { org_id: _org, fire_key: _key, retry_delay_ms: _delay, callback: _callback, ...pub } = r;
  return pub;
}
