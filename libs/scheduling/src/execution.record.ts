import { fromJsonText, iso, mongoose, toJsonText } from '@platform/db';
import { activeTraceparent } from '@platform/tracing';

import type { ExecutionDoc } from './execution.model';
import type { ExecutionRecord, NewExecution } from './execution.types';

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
    trace_id: traceIdOf(d.trace_parent),
    trace_parent: d.trace_parent ?? null,
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

/** The trace id in a `traceparent` (`00-<trace id>-<span id>-<flags>`). */
const traceIdOf = (traceparent: string | null | undefined) => traceparent?.split('-')[1] ?? null;

/** The public Execution object: the record without server-side fields. */
export function presentExecution(r: ExecutionRecord) {
  const {
    org_id: _org,
    fire_key: _key,
    retry_delay_ms: _delay,
    callback: _callback,
    trace_parent: _traceparent,
    ...pub
  } = r;
  return pub;
}

/**
 * A new execution's document as the schema stores it: every field typed and set (its default where the input has
 * none), so that it is inserted as it is. Building a mongoose document to cast and default it cost several percent of
 * the scheduler's CPU per trigger; a test holds this equal to what the schema makes of the same input.
 */
export function executionDocument(input: NewExecution, id: string, now: Date): ExecutionDoc {
  const skipped = input.status === 'skipped';
  const claimed = !skipped && input.claimant !== undefined;
  const doc: ExecutionDoc = {
    _id: new mongoose.Types.ObjectId(id),
    kind: input.kind,
    webhook_id: input.webhook_id ?? null,
    schedule_id: input.schedule_id ?? null,
    agent_id: input.agent_id ?? null,
    user_id: input.user_id,
    org_id: input.org_id,
    session_id: `execution-${id}`,
    status: claimed ? 'running' : (input.status ?? 'queued'),
    success: null,
    attempt: claimed ? 1 : 0,
    max_attempts: input.max_attempts,
    scheduled_for: input.scheduled_for ?? null,
    triggered_at: now,
    started_at: claimed ? now : null,
    finished_at: skipped ? now : null,
    duration_ms: skipped ? 0 : null,
    // A sender's JSON as sent ($-keys, dotted keys and nested arrays included): as JSON text.
    payload_json: toJsonText(input.payload),
    response_status: null,
    response_output: null,
    error_message: input.error_message ?? null,
    replay_of: input.replay_of ?? null,
    // Created inside the trigger's request or the fire's span: the run's spans will be that span's children.
    trace_parent: activeTraceparent() ?? null,
    fire_key: input.fire_key ?? id,
    retry_delay_ms: input.retry_delay_ms ?? null,
    recoveries: 0,
  };
  if (claimed) doc.claim = input.claimant;
  if (input.callback) doc.cb = { url: input.callback.url, secret: input.callback.secret };
  return doc;
}
