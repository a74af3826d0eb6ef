import { iso } from '@platform/db';
import { nextFire, type HttpTarget, type ScheduleRecord } from '@platform/scheduling';
import { MASK, type SecretBox } from '@platform/secrets';

import type { AgentSchedule, HttpSchedule, HttpScheduleInput, ScheduleView } from './schedule.types';

/** The public object of a schedule of either kind; `next_run_time` in the schedule's zone, null while paused. */
export function presentSchedule(r: ScheduleRecord, now: Date): ScheduleView {
  const next = r.is_active ? nextFire(r.cron_expression, r.timezone, now.getTime()) : null;
  const common = {
    id: r.id,
    user_id: r.user_id,
    cron_expression: r.cron_expression,
    timezone: r.timezone,
    max_retries: r.max_retries,
    retry_delay: r.retry_delay,
    overlap_policy: r.overlap_policy,
    is_active: r.is_active,
    created_at: r.created_at.toISOString(),
    updated_at: iso(r.updated_at),
    next_run_time: next === null ? null : new Date(next).toISOString(),
    last_run_at: iso(r.last_run_at),
    last_run_success: r.last_run_success,
    run_count: r.run_count,
    callback_url: r.callback_url,
  };
  if (r.kind === 'agent' || !r.http)
    return { ...common, agent_id: r.agent_id ?? '', message: r.message } satisfies AgentSchedule;
  const h = r.http;
  return {
    ...common,
    name: h.name,
    url: h.url,
    method: h.method,
    headers: Object.fromEntries(Object.keys(h.headers_sealed).map((k) => [k, MASK])),
    query: h.query,
    body: h.body,
    timeout_ms: h.timeout_ms,
  } satisfies HttpSchedule;
}

/**
 * The stored HTTP target for `input`, header values sealed. A header sent as the mask ("***") keeps the value it
 * has in `previous`, so a client can send back what it read.
 */
export function httpTargetOf(input: HttpScheduleInput, box: SecretBox, previous?: HttpTarget | null): HttpTarget {
  const headers_sealed: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers)) {
    const kept = v === MASK ? previous?.headers_sealed[k] : undefined;
    headers_sealed[k] = kept ?? box.encrypt(v);
  }
  return {
    name: input.name,
    url: input.url,
    method: input.method,
    headers_sealed,
    query: Object.fromEntries(Object.entries(input.query).map(([k, v]) => [k, String(v)])),
    body: input.body === undefined ? null : input.body,
    timeout_ms: input.timeout_ms,
  };
}
