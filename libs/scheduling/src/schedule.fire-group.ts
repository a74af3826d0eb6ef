import { createHash } from 'node:crypto';

/** Fire groups per cron rule: the schedules of one rule are spread over this many groups by id. */
export const FIRE_GROUP_BUCKETS = 64;

/**
 * The fire group of a schedule: schedules with the same cron expression and zone (so the same fire times), spread
 * by id over FIRE_GROUP_BUCKETS groups. Every member of a group comes due at the same instants, so the worker reads
 * a group's schedules with one indexed equality when the first of its fires arrives and serves the others from that
 * read (schedule.fire-reader.ts), instead of one read per fire. A pure function of stored fields: MongoDB stores
 * it with the schedule and Redis carries it in the fire job.
 */
export function fireGroupOf(id: string, cronExpression: string, timezone: string): string {
  const rule = createHash('sha1')
    .update(`${cronExpression.trim().split(/\s+/).join(' ')}\n${timezone}`)
    .digest('hex')
    .slice(0, 12);
  const bucket = createHash('sha1').update(id).digest().readUInt16BE(0) % FIRE_GROUP_BUCKETS;
  return `${rule}.${bucket}`;
}
