import type { Execution } from './execution.schemas.types';

export type { Execution };
export { EXECUTION_KINDS, EXECUTION_STATUSES } from './execution.schemas';
export type ExecutionKind = Execution['kind'];
export type ExecutionStatus = Execution['status'];

/** The largest `response_output` kept, in bytes of UTF-8 (64 KiB). */
export const MAX_OUTPUT_BYTES = 64 * 1024;

/** Server-side fields that are not part of the public object. */
export interface ExecutionRecord extends Execution {
  org_id: string;
  /** Unique per run (see the model). */
  fire_key: string;
  /** Fixed delay between attempts (schedules' `retry_delay`); null: exponential backoff. */
  retry_delay_ms: number | null;
  /** Where its completion callback goes and the sealed signing secret (see NewExecution); absent: none. */
  callback?: CallbackTarget;
  /** The `traceparent` of the span it was created in (the model's `trace_parent`); null when not traced. */
  trace_parent: string | null;
}

/** A run's completion callback: its webhook's or schedule's `callback_url`, and the secret sealed (libs/secrets). */
export interface CallbackTarget {
  url: string;
  /** The `whsec_` secret sealed with the schedule secret box, so that the worker can open it to sign. */
  secret: string;
}

export interface NewExecution {
  kind: ExecutionKind;
  webhook_id?: string | null;
  schedule_id?: string | null;
  agent_id?: string | null;
  user_id: string;
  org_id: string;
  payload: unknown;
  max_attempts: number;
  scheduled_for?: Date | null;
  /** A cron fire's key; other runs get their own id. */
  fire_key?: string;
  retry_delay_ms?: number | null;
  /** `skipped` records a fire that did not run (overlap policy); default `queued`. */
  status?: 'queued' | 'skipped';
  /**
   * Stored already claimed by this claimant (`running`, attempt 1, started now): a cron fire that makes its run's
   * first attempt itself, with no claim of its own (see the worker's fire processor). Not with `skipped`.
   */
  claimant?: string;
  error_message?: string | null;
  /** The id to store it under (a replay claims its idempotency key with it first); default a new one. */
  id?: string;
  /** The execution a replay re-runs. */
  replay_of?: string | null;
  /**
   * The completion callback of its webhook or schedule at creation (contract §8): kept with the run, so the worker
   * delivers it without reading the webhook or schedule; a run created before a change keeps the old target.
   */
  callback?: CallbackTarget | null;
}

/** The outcome of one attempt. */
export interface RunOutcome {
  success: boolean;
  response_status: number | null;
  response_output: string | null;
  error_message: string | null;
}

/** What a job on the `run-callbacks` queue carries: the ended execution's id. */
export interface CallbackJob {
  execution_id: string;
}

/** What a job on the `agent-runs` or `http-calls` queue carries: ids only, never secrets or bodies. */
export interface AgentRunJob {
  execution_id: string;
  /** The run's agent and webhook, whose concurrency limits the worker applies (absent: none). */
  agent_id?: string;
  webhook_id?: string;
  /** When the run was triggered (ms): runs waiting for a concurrency limit start in this order. */
  triggered_ms?: number;
  /** The trace the run belongs to (W3C `traceparent` of the trigger's or fire's span); absent when not traced. */
  traceparent?: string;
  /** The attempt to resume: one that a store outage interrupted before it ran (no attempt is spent on it). */
  resume_attempt?: number;
}

/** The key that makes a cron fire unique. */
export const fireKeyOf = (scheduleId: string, fireMs: number) => `${scheduleId}:${fireMs}`;

/** Cuts a string to at most `max` bytes of UTF-8 without splitting a character. */
export function capUtf8(text: string, max = MAX_OUTPUT_BYTES): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return text;
  let end = max;
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}
