import type { ScheduleRecord } from './schedule.types';

export interface FireReaderDeps {
  schedules: {
    getById(id: string): Promise<ScheduleRecord | null>;
    inFireGroup(group: string): Promise<ScheduleRecord[]>;
  };
  clock: () => number;
  /** How long a read serves later questions (default FIRE_READ_TTL_MS). */
  ttlMs?: number;
}

/** A read of a fire group serves the fires (and first calls) of that fire time for this long after it was made. */
export const FIRE_READ_TTL_MS = 5_000;
/** Reads of fire groups kept at most (each holds its group's schedules). */
const MAX_GROUP_READS = 4_096;

interface GroupRead {
  at: number;
  members: Promise<Map<string, ScheduleRecord>>;
}

/**
 * The worker's reads of schedules for their fires. Fires that come due together are read together: the first fire
 * of a fire group (schedule.fire-group.ts: one cron rule, so one set of fire times) at a fire time reads the whole
 * group with one indexed equality, and the group's other fires of that time are answered from it. A read is made
 * when the first fire it serves is handled and serves for FIRE_READ_TTL_MS at most, so a fire sees its schedule as
 * it was at most a few seconds before the fire is handled, as a read of its own would see it while fires queue: a
 * schedule paused or changed in those seconds may still run a fire that fell due before, never a later one (those
 * check `active_since` and the rule). A schedule missing from its group's read (its rule changed, or it was stored
 * before groups existed) is read alone.
 *
 * `current` serves an HTTP schedule's call the same way: the schedule as read by its fire, when that read is at
 * most FIRE_READ_TTL_MS old, else a read of its own.
 */
export function createFireReader(deps: FireReaderDeps) {
  const ttlMs = deps.ttlMs ?? FIRE_READ_TTL_MS;
  const groupReads = new Map<string, GroupRead>();
  /** The latest read of each schedule made by a group read, oldest first. */
  const seen = new Map<string, { at: number; record: ScheduleRecord }>();

  /** Forgets reads older than the TTL (both maps are in the order the reads were made). */
  function sweep(now: number): void {
    for (const [key, r] of groupReads) {
      if (now - r.at <= ttlMs && groupReads.size <= MAX_GROUP_READS) break;
      groupReads.delete(key);
    }
    for (const [id, s] of seen) {
      if (now - s.at <= ttlMs) break;
      seen.delete(id);
    }
  }

  function readGroup(group: string, fireMs: number, now: number): Promise<Map<string, ScheduleRecord>> {
    const key = `${group}@${fireMs}`;
    const known = groupReads.get(key);
    if (known && now - known.at <= ttlMs) return known.members;
    sweep(now);
    const members = deps.schedules.inFireGroup(group).then((records) => {
      const at = deps.clock();
      for (const r of records) {
        seen.delete(r.id);
        seen.set(r.id, { at, record: r });
      }
      return new Map(records.map((r) => [r.id, r]));
    });
    const read: GroupRead = { at: now, members };
    groupReads.delete(key);
    groupReads.set(key, read);
    // A failed read is not kept: the fires that shared it fail and are retried, and the next one reads again.
    members.catch(() => {
      if (groupReads.get(key) === read) groupReads.delete(key);
    });
    return members;
  }

  return {
    /** The schedule as its fire at `fireMs` sees it, read with its group when the job names one. */
    async forFire(scheduleId: string, group: string | undefined, fireMs: number): Promise<ScheduleRecord | null> {
      if (group) {
        const found = (await readGroup(group, fireMs, deps.clock())).get(scheduleId);
        if (found) return found;
      }
      return deps.schedules.getById(scheduleId);
    },

    /** The schedule as read by a fire at most the TTL ago, else as read now. */
    async current(scheduleId: string): Promise<ScheduleRecord | null> {
      const s = seen.get(scheduleId);
      if (s && deps.clock() - s.at <= ttlMs) return s.record;
      return deps.schedules.getById(scheduleId);
    },
  };
}

export type FireReader = ReturnType<typeof createFireReader>;
