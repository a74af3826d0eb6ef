import type { CallbackTarget } from './execution.types';

/** Which kind of work a schedule fires. */
export type ScheduleKind = 'agent' | 'http';
/** What a fire does while the schedule's previous run is still going: the scheduler's schemas accept these. */
export const OVERLAP_POLICIES = ['skip', 'allow'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
/** The methods an HTTP schedule may call with: the scheduler's schemas accept these. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** The cron part every schedule has. */
export interface CronSpec {
  cron_expression: string;
  timezone: string;
}

export interface RunPolicy {
  max_retries: number;
  /** Seconds between attempts. */
  retry_delay: number;
  overlap_policy: OverlapPolicy;
}

/** What an HTTP schedule calls. Header values are sealed (encrypted) in the record. */
export interface HttpTarget {
  name: string;
  url: string;
  method: HttpMethod;
  headers_sealed: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  timeout_ms: number;
}

/** A schedule as stored: both kinds in one collection (the reconciler and the worker treat them alike). */
export interface ScheduleRecord extends CronSpec, RunPolicy {
  id: string;
  kind: ScheduleKind;
  user_id: string;
  org_id: string;
  /** Agent schedules. */
  agent_id: string | null;
  message: string;
  /** HTTP schedules. */
  http: HttpTarget | null;
  is_active: boolean;
  /** When the current cron spec started applying (create, resume, cron or zone change): earlier fires are stale. */
  active_since: Date;
  created_at: Date;
  updated_at: Date | null;
  last_run_at: Date | null;
  last_run_success: boolean | null;
  run_count: number;
  /** Where its runs' completion callbacks go (contract §8); null: none. */
  callback_url: string | null;
  /**
   * The callback signing secret (`whsec_...`) sealed with the schedule secret box (libs/secrets), which the worker
   * opens to sign; null when there is no `callback_url`.
   */
  callback_secret_sealed: string | null;
}

export type NewSchedule = Omit<
  ScheduleRecord,
  | 'id'
  | 'user_id'
  | 'org_id'
  | 'created_at'
  | 'updated_at'
  | 'last_run_at'
  | 'last_run_success'
  | 'run_count'
  | 'active_since'
  | 'callback_url'
  | 'callback_secret_sealed'
> &
  Partial<Pick<ScheduleRecord, 'callback_url' | 'callback_secret_sealed'>>;

/** What a resource with a completion callback stores of it (a schedule, a webhook). */
export interface CallbackConfig {
  callback_url: string | null;
  callback_secret_sealed: string | null;
}

/** The target a new run of `r` carries (NewExecution `callback`): its URL and sealed secret, or null when none. */
export const callbackTargetOf = (r: CallbackConfig): CallbackTarget | null =>
  r.callback_url && r.callback_secret_sealed ? { url: r.callback_url, secret: r.callback_secret_sealed } : null;

/** What a job on the `schedule-fires` queue carries. The fire time is in the job id, or `fire_at` for catch-ups. */
export interface FireJob {
  schedule_id: string;
  /** The schedule's fire group when the job was made (schedule.fire-group.ts); absent in jobs made before groups. */
  group?: string;
  fire_at?: number;
}
