import type { Logger } from '@platform/logger';
import { within, type Queue } from '@platform/queue';
import { removeFiring, syncFiring, type FireJob, type ScheduleRecord } from '@platform/scheduling';

import type { Firing } from './schedule.service';

/**
 * Redis side of schedule changes, on the request path but never failing it: MongoDB has the change already, and
 * the reconciler repairs Redis within its interval when Redis was away or slow.
 */
export function createFiring(queue: Queue<FireJob>, logger: Logger, timeoutMs: number): Firing {
  const attempt = async (what: string, scheduleId: string, work: () => Promise<unknown>) => {
    try {
      await within(timeoutMs, work());
    } catch (err) {
      logger.warn(`could not ${what} the schedule's firing in Redis; the reconciler will`, {
        schedule_id: scheduleId,
        err: (err as Error).message,
      });
    }
  };
  return {
    sync: (s: ScheduleRecord) => attempt('update', s.id, () => syncFiring(queue, s)),
    remove: (id: string) => attempt('remove', id, () => removeFiring(queue, id)),
  };
}
