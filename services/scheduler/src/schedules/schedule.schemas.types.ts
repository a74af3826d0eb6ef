// Generated from schedule.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

import type { Webhook } from '../webhooks/webhook.schemas.types';

export interface ScheduleCreateBody {
  agent_id: string;
  message: string;
  /**
   * 5 fields: minute hour day-of-month month day-of-week; ranges, lists, steps, month and day names
   */
  cron_expression: string;
  /**
   * Any IANA zone or alias (e.g. Asia/Calcutta)
   */
  timezone: string;
  max_retries: number;
  /**
   * Seconds between attempts
   */
  retry_delay: number;
  overlap_policy: 'skip' | 'allow';
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url?: string | null;
}

export interface ScheduleAgentPath {
  agent_id: string;
}

export interface AgentSchedules {
  agent_id: string;
  schedules: Schedule[];
  webhooks: Webhook[];
}

export interface ScheduleUpdateBody {
  agent_id?: string;
  message?: string;
  /**
   * 5 fields: minute hour day-of-month month day-of-week; ranges, lists, steps, month and day names
   */
  cron_expression?: string;
  /**
   * Any IANA zone or alias (e.g. Asia/Calcutta)
   */
  timezone?: string;
  max_retries?: number;
  /**
   * Seconds between attempts
   */
  retry_delay?: number;
  overlap_policy?: 'skip' | 'allow';
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url?: string | null;
}

export interface HttpScheduleCreateBody {
  name: string;
  /**
   * http or https. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused); host names are checked at every call.
   */
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /**
   * Values are encrypted at rest and read back as "***"; sending "***" keeps the stored value
   */
  headers: {
    [pattern: string]: string;
  };
  query: {
    [pattern: string]: string | number | boolean;
  };
  /**
   * Any JSON, sent as application/json (not with GET or HEAD)
   */
  body?: unknown;
  timeout_ms: number;
  /**
   * 5 fields: minute hour day-of-month month day-of-week; ranges, lists, steps, month and day names
   */
  cron_expression: string;
  /**
   * Any IANA zone or alias (e.g. Asia/Calcutta)
   */
  timezone: string;
  max_retries: number;
  /**
   * Seconds between attempts
   */
  retry_delay: number;
  overlap_policy: 'skip' | 'allow';
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url?: string | null;
}

export interface HttpSchedule {
  id: string;
  user_id: string;
  is_active: boolean;
  created_at: string;
  updated_at: string | null;
  /**
   * Next fire in the schedule zone; null while paused
   */
  next_run_time: string | null;
  last_run_at: string | null;
  last_run_success: boolean | null;
  run_count: number;
  /**
   * 5 fields: minute hour day-of-month month day-of-week; ranges, lists, steps, month and day names
   */
  cron_expression: string;
  /**
   * Any IANA zone or alias (e.g. Asia/Calcutta)
   */
  timezone: string;
  max_retries: number;
  /**
   * Seconds between attempts
   */
  retry_delay: number;
  overlap_policy: 'skip' | 'allow';
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url: string | null;
  /**
   * whsec_ + base64 of the signing key of the callbacks. Present only in the answer of the request that generated it (a create or PATCH that set the first callback_url, and regenerate-callback-secret); never shown again.
   */
  callback_secret?: string;
  name: string;
  /**
   * http or https. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused); host names are checked at every call.
   */
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /**
   * Values are encrypted at rest and read back as "***"; sending "***" keeps the stored value
   */
  headers: {
    [pattern: string]: string;
  };
  query: {
    [pattern: string]: string;
  };
  timeout_ms: number;
  /**
   * Any JSON, sent as application/json (not with GET or HEAD)
   */
  body?: unknown;
}

export interface HttpScheduleBulkPauseResult {
  message: string;
  total_requested: number;
  paused_count: number;
  already_paused_count: number;
  not_found_count: number;
  invalid_count: number;
  paused_schedules: HttpSchedule[];
}

export interface HttpScheduleList {
  schedules: HttpSchedule[];
  total: number;
}

export interface HttpScheduleUpdateBody {
  name?: string;
  /**
   * http or https. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused); host names are checked at every call.
   */
  url?: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /**
   * Values are encrypted at rest and read back as "***"; sending "***" keeps the stored value
   */
  headers?: {
    [pattern: string]: string;
  };
  query?: {
    [pattern: string]: string | number | boolean;
  };
  /**
   * Any JSON, sent as application/json (not with GET or HEAD)
   */
  body?: unknown;
  timeout_ms?: number;
  /**
   * 5 fields: minute hour day-of-month month day-of-week; ranges, lists, steps, month and day names
   */
  cron_expression?: string;
  /**
   * Any IANA zone or alias (e.g. Asia/Calcutta)
   */
  timezone?: string;
  max_retries?: number;
  /**
   * Seconds between attempts
   */
  retry_delay?: number;
  overlap_policy?: 'skip' | 'allow';
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url?: string | null;
}

export interface ScheduleListQuery {
  agent_id?: string;
  is_active?: boolean;
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface Schedule {
  id: string;
  user_id: string;
  is_active: boolean;
  created_at: string;
  updated_at: string | null;
  /**
   * Next fire in the schedule zone; null while paused
   */
  next_run_time: string | null;
  last_run_at: string | null;
  last_run_success: boolean | null;
  run_count: number;
  /**
   * 5 fields: minute hour day-of-month month day-of-week; ranges, lists, steps, month and day names
   */
  cron_expression: string;
  /**
   * Any IANA zone or alias (e.g. Asia/Calcutta)
   */
  timezone: string;
  max_retries: number;
  /**
   * Seconds between attempts
   */
  retry_delay: number;
  overlap_policy: 'skip' | 'allow';
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url: string | null;
  /**
   * whsec_ + base64 of the signing key of the callbacks. Present only in the answer of the request that generated it (a create or PATCH that set the first callback_url, and regenerate-callback-secret); never shown again.
   */
  callback_secret?: string;
  agent_id: string;
  message: string;
}

export interface ScheduleBulkPauseResult {
  message: string;
  total_requested: number;
  paused_count: number;
  already_paused_count: number;
  not_found_count: number;
  invalid_count: number;
  paused_schedules: Schedule[];
}

export interface ScheduleList {
  schedules: Schedule[];
  total: number;
}

export interface SchedulePath {
  schedule_id: string;
}

export interface ScheduleTriggerResult {
  execution_id: string;
  status: 'queued';
}
