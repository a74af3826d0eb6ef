import { addWithin, type Job, type JobSchedulerJson, type Queue, type RepeatStrategy } from '@platform/queue';

import { nextFire } from './cron';
import { fireGroupOf } from './schedule.fire-group';
import type { FireJob, ScheduleRecord } from './schedule.types';

/**
 * The cron side of BullMQ: one job scheduler per active schedule (id = schedule id, pattern + tz), whose jobs have
 * the deterministic id `repeat:<schedule id>:<fire ms>`. Fire times come from `nextFire` through this repeat
 * strategy, on the producer (upsert) and on the worker (each next fire) alike.
 */
export function createRepeatStrategy(clock: () => number = Date.now): RepeatStrategy {
  return (millis, opts) => nextFire(opts.pattern ?? '', opts.tz ?? 'UTC', Math.max(millis, clock())) ?? undefined;
}

/**
 * A fire job that fails (MongoDB unreachable) is retried for about 17 minutes (1 s doubling, 10 attempts) before the
 * fire is given up; its execution is created at most once whenever it succeeds. Finished jobs are kept briefly:
 * the executions are the record.
 */
const FIRE_JOB_OPTIONS = {
  removeOnComplete: { count: 1_000, age: 3600 },
  removeOnFail: { count: 1_000, age: 24 * 3600 },
  attempts: 10,
  backoff: { type: 'exponential', delay: 1_000 },
};

/** The job id of one fire; the same on every replica, so Redis holds one job per fire. */
export const fireJobId = (scheduleId: string, fireMs: number) => `repeat:${scheduleId}:${fireMs}`;

/** Makes Redis fire the schedule as MongoDB says: a scheduler when active, none otherwise. */
export async function syncFiring(queue: Queue<FireJob>, s: ScheduleRecord): Promise<void> {
  if (!s.is_active) {
    await queue.removeJobScheduler(s.id);
    return;
  }
  await queue.upsertJobScheduler(
    s.id,
    { pattern: s.cron_expression, tz: s.timezone },
    {
      name: 'fire',
      data: { schedule_id: s.id, group: fireGroupOf(s.id, s.cron_expression, s.timezone) },
      opts: FIRE_JOB_OPTIONS,
    },
  );
}

export const removeFiring = (queue: Queue<FireJob>, scheduleId: string) => queue.removeJobScheduler(scheduleId);

/**
 * Queues one fire by hand (a fire Redis lost), with the schedule's fire group when known. Its job id is not the
 * scheduler's (`repeat:`), which BullMQ keeps for its own next job; a second run of the fire is impossible anyway
 * (the executions' unique `fire_key`).
 */
export function addFire(
  queue: Queue<FireJob>,
  scheduleId: string,
  fireMs: number,
  timeoutMs: number,
  group?: string,
): Promise<string> {
  return addWithin(
    queue,
    timeoutMs,
    'fire',
    { schedule_id: scheduleId, fire_at: fireMs, ...(group ? { group } : {}) },
    { ...FIRE_JOB_OPTIONS, jobId: `fire:${scheduleId}:${fireMs}` },
  );
}

/** The fire time a job stands for: `fire_at` when added by hand, else the one in its scheduler-made id. */
export function fireTimeOf(job: Pick<Job<FireJob>, 'id' | 'data'>): number | null {
  if (typeof job.data.fire_at === 'number') return job.data.fire_at;
  const ms = Number(String(job.id ?? '').split(':')[2]);
  return Number.isSafeInteger(ms) ? ms : null;
}

/** True when Redis's scheduler fires what the schedule says, with the schedule's fire group in its jobs. */
export const firingMatches = (
  j: JobSchedulerJson<FireJob> | undefined,
  s: Pick<ScheduleRecord, 'id' | 'cron_expression' | 'timezone'>,
) =>
  Boolean(
    j &&
    j.pattern === s.cron_expression &&
    (j.tz ?? 'UTC') === s.timezone &&
    j.template?.data?.group === fireGroupOf(s.id, s.cron_expression, s.timezone),
  );
