import { randomUUID } from 'node:crypto';

import type { Logger } from '@platform/logger';
import type { Job } from '@platform/queue';
import {
  callbackTargetOf,
  fireKeyOf,
  firesBetween,
  fireTimeOf,
  nextFire,
  type ExecutionRecord,
  type ExecutionRepository,
  type FireJob,
  type FireReader,
  type NewExecution,
  type ScheduleRecord,
} from '@platform/scheduling';
import { inSpan, ROOT_CONTEXT } from '@platform/tracing';

import type { DirectRuns } from '../runs/direct-runs';

export interface FireDeps {
  /** Reads a fire's schedule, with the others of its fire group that come due with it. */
  schedules: Pick<FireReader, 'forFire'>;
  executions: ExecutionRepository;
  /** Puts a stored execution on its run queue (agent-runs or http-calls). The run counts itself when it ends. */
  enqueue: (exec: ExecutionRecord) => Promise<unknown>;
  clock: () => Date;
  logger: Logger;
  /** Observes fires that will not run because this one was taken late (metrics). */
  onCoalesced?: (count: number) => void;
  /** Queues the completion callback of a fire recorded `skipped` (it ends at once); runs queue theirs when they end. */
  callbacks?: (exec: ExecutionRecord) => Promise<void>;
  /**
   * Runs an HTTP schedule's fire makes at once (its first attempt, the execution stored already claimed) while they
   * have a place; without one (or unset), runs are queued (`enqueue`).
   */
  direct?: Pick<DirectRuns, 'reserve'>;
}

/** What a fire's execution records as its payload: the agent's message, or the request without header values. */
function payloadOf(s: ScheduleRecord): unknown {
  if (s.kind === 'agent' || !s.http) return s.message;
  const { method, url, query, body, timeout_ms } = s.http;
  return { method, url, query, body, timeout_ms, headers: Object.keys(s.http.headers_sealed) };
}

/** Why a fire must not run (the schedule changed since Redis made it), or null. */
function staleReason(s: ScheduleRecord | null, fireMs: number): string | null {
  if (!s) return 'schedule deleted';
  if (!s.is_active) return 'schedule paused';
  if (fireMs < s.active_since.getTime()) return 'fire predates the current cron or activation';
  if (nextFire(s.cron_expression, s.timezone, fireMs - 1000) !== fireMs)
    return 'fire is not a time of the current cron';
  return null;
}

/**
 * Processes one `schedule-fires` job, made by BullMQ's job scheduler (or queued by hand for a fire Redis lost).
 * MongoDB decides: a fire of a deleted, paused or changed schedule is dropped. The fire's execution is created
 * with the unique key `<schedule id>:<fire ms>`, so however many replicas handle the same fire, one execution
 * exists and one run starts. With `overlap_policy: skip`, a fire while a run of the schedule is unfinished is
 * recorded as `skipped`. A fire taken after later fires fell due stands for them (they are not queued); that is
 * logged and counted.
 *
 * Each fire is the root of its own trace (`cron fire`); the run it creates is traced under it (the execution's
 * `trace_id`).
 */
export function createFireProcessor(deps: FireDeps) {
  const log = deps.logger.child({ module: 'fire' });
  /** This processor among every worker's: part of the claim of each run it makes itself. */
  const processorId = randomUUID();
  const fire = async (job: Job<FireJob>): Promise<void> => {
    const fireMs = fireTimeOf(job);
    const s = fireMs === null ? null : await deps.schedules.forFire(job.data.schedule_id, job.data.group, fireMs);
    const stale = fireMs === null ? 'job carries no fire time' : staleReason(s, fireMs);
    if (stale || !s || fireMs === null) {
      log.info('fire dropped', { schedule_id: job.data.schedule_id, job_id: job.id, reason: stale });
      return;
    }
    const now = deps.clock();
    // BullMQ queues a schedule's next fire when it takes the current one, from now on: fires that fell due while
    // this one waited (the fire queue is behind, or no worker ran) are not queued. Say so rather than stay silent.
    const following = nextFire(s.cron_expression, s.timezone, fireMs);
    const passed =
      following !== null && following <= now.getTime()
        ? firesBetween(s.cron_expression, s.timezone, fireMs, now.getTime(), 10_000).length
        : 0;
    if (passed > 0) {
      deps.onCoalesced?.(passed);
      log.warn('fire taken late: later fires that fell due meanwhile are coalesced into it', {
        schedule_id: s.id,
        fire_at: new Date(fireMs).toISOString(),
        coalesced: passed,
      });
    }
    const base: NewExecution & { fire_key: string } = {
      kind: s.kind === 'agent' ? 'agent_schedule' : 'http_schedule',
      schedule_id: s.id,
      agent_id: s.agent_id,
      user_id: s.user_id,
      org_id: s.org_id,
      payload: payloadOf(s),
      max_attempts: s.max_retries + 1,
      retry_delay_ms: s.retry_delay * 1000,
      scheduled_for: new Date(fireMs),
      fire_key: fireKeyOf(s.id, fireMs),
      callback: callbackTargetOf(s),
    };
    if (s.overlap_policy === 'skip' && (await deps.executions.hasUnfinishedRun(s, s.id))) {
      const skipped = await deps.executions.createOnce(
        {
          ...base,
          status: 'skipped',
          error_message: 'skipped: the previous run was still going (overlap_policy skip)',
        },
        now,
      );
      if (!skipped) return;
      log.info('fire skipped: previous run unfinished', { schedule_id: s.id, execution_id: skipped.id });
      await deps
        .callbacks?.(skipped)
        .catch((err: unknown) =>
          log.warn('callback of a skipped fire not queued', { execution_id: skipped.id, err: (err as Error).message }),
        );
      return;
    }
    // An HTTP schedule's run is made here while this process has a place for it: no run job to add, take and finish.
    const place = s.kind === 'http' ? (deps.direct?.reserve() ?? null) : null;
    let exec: ExecutionRecord | null;
    try {
      const claimant = place ? { claimant: `fire:${job.id ?? ''}:${processorId}` } : {};
      exec = await deps.executions.createOnce({ ...base, ...claimant }, now);
    } catch (err) {
      place?.release();
      throw err;
    }
    if (!exec) {
      place?.release();
      log.info('fire already handled by another replica', { schedule_id: s.id, fire_key: base.fire_key });
      return;
    }
    if (place) return place.start(exec);
    // A failed add leaves the execution queued: the scheduler's outbox enqueues it once Redis takes jobs again.
    const queued = exec;
    await deps
      .enqueue(queued)
      .catch((err: unknown) =>
        log.warn('run not enqueued; left to the outbox', { execution_id: queued.id, err: (err as Error).message }),
      );
  };
  return (job: Job<FireJob>): Promise<void> =>
    inSpan(
      'cron fire',
      { parent: ROOT_CONTEXT, attributes: { 'schedule.id': job.data.schedule_id, 'job.id': job.id ?? '' } },
      () => fire(job),
    );
}
