import type { Logger } from '@platform/logger';
import type { Queue } from '@platform/queue';

import { firesBetween } from './cron';
import type { ExecutionRepository } from './execution.repository';
import { fireKeyOf } from './execution.types';
import { addFire, firingMatches, syncFiring } from './fires.queue';
import { fireGroupOf } from './schedule.fire-group';
import type { ScheduleRepository } from './schedule.repository';
import type { FireJob, ScheduleRecord } from './schedule.types';

export interface ReconcileDeps {
  schedules: ScheduleRepository;
  executions: ExecutionRepository;
  queue: Queue<FireJob>;
  clock: () => Date;
  logger: Logger;
  /** A fire missed while Redis lacked the schedule's scheduler still runs when it is at most this old. */
  catchUpMs: number;
  /** How long adding a job may wait for Redis. */
  enqueueTimeoutMs: number;
}

export interface ReconcileReport {
  active: number;
  upserted: number;
  removed: number;
  caughtUp: number;
}

/**
 * MongoDB is the source of truth for what fires; this makes Redis agree. Every active schedule gets exactly one
 * job scheduler with its cron and zone (upserted only when missing or different, so a steady state writes
 * nothing); every scheduler whose schedule is gone or paused is removed. When a scheduler was missing (Redis lost
 * its data, or was down when the schedule changed), the latest fire due since then (within `catchUpMs`) that has
 * no execution is queued by hand. Safe to run on every replica at once: job ids and the executions' unique
 * `fire_key` make every fire run once.
 */
export function createReconciler(deps: ReconcileDeps) {
  let inFlight: Promise<ReconcileReport> | null = null;

  async function catchUp(s: ScheduleRecord, now: number): Promise<boolean> {
    const from = Math.max(s.active_since.getTime(), now - deps.catchUpMs);
    const last = firesBetween(s.cron_expression, s.timezone, from, now).at(-1);
    if (last === undefined || (await deps.executions.getByFireKey(fireKeyOf(s.id, last)))) return false;
    await addFire(deps.queue, s.id, last, deps.enqueueTimeoutMs, fireGroupOf(s.id, s.cron_expression, s.timezone));
    deps.logger.info('queued a fire missed while Redis lacked its schedule', {
      schedule_id: s.id,
      fire_at: new Date(last).toISOString(),
    });
    return true;
  }

  async function run(): Promise<ReconcileReport> {
    const report: ReconcileReport = { active: 0, upserted: 0, removed: 0, caughtUp: 0 };
    const inRedis = new Map((await deps.queue.getJobSchedulers(0, -1, true)).map((j) => [j.key, j]));
    const now = deps.clock().getTime();
    for await (const spec of deps.schedules.activeSpecs()) {
      report.active++;
      // Schedules stored before fire groups existed get theirs (their fires are read one by one until then).
      if (spec.fire_group !== fireGroupOf(spec.id, spec.cron_expression, spec.timezone))
        await deps.schedules.storeFireGroup(spec);
      const existing = inRedis.get(spec.id);
      inRedis.delete(spec.id);
      if (firingMatches(existing, spec)) continue;
      // Re-read: a pause or change since the walk read it must not be undone.
      const current = await deps.schedules.getById(spec.id);
      if (!current?.is_active) continue;
      if (!existing && (await catchUp(current, now))) report.caughtUp++;
      await syncFiring(deps.queue, current);
      report.upserted++;
    }
    for (const id of inRedis.keys()) {
      // A schedule created or resumed after the walk passed it is active in MongoDB: keep it.
      if ((await deps.schedules.getById(id))?.is_active) continue;
      await deps.queue.removeJobScheduler(id);
      report.removed++;
    }
    if (report.upserted || report.removed) deps.logger.info('schedules reconciled into Redis', { ...report });
    return report;
  }

  /** One pass at a time per process: a call while a pass runs gets that pass's report. */
  return function reconcile(): Promise<ReconcileReport> {
    inFlight ??= run().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}
