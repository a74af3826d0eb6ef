// Generated from execution.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface CallbackDelivery {
  /**
   * Attempts made so far (at most 5)
   */
  attempts: number;
  /**
   * The receiver's last HTTP status; null when it never answered
   */
  last_status: number | null;
  /**
   * Why the last attempt failed; null once delivered
   */
  last_error: string | null;
  /**
   * When a 2xx answer came; null until then
   */
  delivered_at: string | null;
  /**
   * When the next attempt is due; null when none is
   */
  next_attempt_at: string | null;
}

export interface Execution {
  id: string;
  kind: 'webhook' | 'agent_schedule' | 'http_schedule';
  webhook_id: string | null;
  schedule_id: string | null;
  agent_id: string | null;
  user_id: string;
  session_id: string | null;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';
  success: boolean | null;
  attempt: number;
  max_attempts: number;
  /**
   * Nominal fire time; null for run-now and webhook runs
   */
  scheduled_for: string | null;
  triggered_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  payload?: unknown;
  response_status: number | null;
  /**
   * At most 64 KiB
   */
  response_output: string | null;
  error_message: string | null;
  /**
   * The execution this one replays; null for a trigger or a fire
   */
  replay_of: string | null;
  /**
   * The run's trace (W3C trace id): the trigger's or the fire's spans and the run's, in the trace backend; null when the run was not traced
   */
  trace_id: string | null;
  /**
   * The completion callback to the webhook's or schedule's `callback_url` (contract §8); null when the run has none
   */
  delivery: CallbackDelivery | null;
}
