import type { HttpMethod, OverlapPolicy } from '@platform/scheduling';

interface Common {
  cron_expression: string;
  timezone: string;
  max_retries: number;
  retry_delay: number;
  overlap_policy: OverlapPolicy;
}

export interface AgentScheduleInput extends Common {
  agent_id: string;
  message: string;
}

export interface HttpScheduleInput extends Common {
  name: string;
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  query: Record<string, string | number | boolean>;
  body?: unknown;
  timeout_ms: number;
}

/** Fields of the public objects that both kinds show. */
interface CommonView extends Common {
  id: string;
  user_id: string;
  is_active: boolean;
  created_at: string;
  updated_at: string | null;
  next_run_time: string | null;
  last_run_at: string | null;
  last_run_success: boolean | null;
  run_count: number;
}

/** The contract's Schedule object. */
export interface AgentSchedule extends CommonView {
  agent_id: string;
  message: string;
}

/** An HTTP schedule; header values are masked. */
export interface HttpSchedule extends CommonView {
  name: string;
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  timeout_ms: number;
}

export type ScheduleView = AgentSchedule | HttpSchedule;

export type { ListFilter } from '@platform/db';
