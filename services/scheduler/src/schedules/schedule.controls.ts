import type { Owner } from '@platform/db';
import { callbackTargetOf, type ScheduleKind } from '@platform/scheduling';

import { pauseBulk } from '../shared/bulk-pause';
import type { ScheduleParts } from './schedule.deps';
import type { ScheduleTriggerResult } from './schedule.schemas.types';
import type { ScheduleView } from './schedule.types';

/** A schedule's pause and resume (one or many, Redis kept in line) and its manual run. */
export function createScheduleControls(parts: ScheduleParts) {
  const { repo, clock, present, found } = parts;

  async function setActive(owner: Owner, kind: ScheduleKind, id: string, active: boolean): Promise<ScheduleView> {
    const now = clock();
    const set = active
      ? { is_active: true, active_since: now, updated_at: now }
      : { is_active: false, updated_at: now };
    const changed = await repo.update(owner, kind, id, set, { is_active: !active });
    if (changed) await parts.firing.sync(changed);
    return present(changed ?? (await found(owner, kind, id)));
  }

  return {
    pause: (owner: Owner, kind: ScheduleKind, id: string) => setActive(owner, kind, id, false),
    resume: (owner: Owner, kind: ScheduleKind, id: string) => setActive(owner, kind, id, true),

    /** Runs the schedule now, outside its cron (also while paused); overlap policy does not apply. */
    async trigger(owner: Owner, kind: ScheduleKind, id: string): Promise<ScheduleTriggerResult> {
      const s = await found(owner, kind, id);
      const now = clock();
      const exec = await parts.executions.create(
        {
          kind: kind === 'agent' ? 'agent_schedule' : 'http_schedule',
          schedule_id: s.id,
          agent_id: s.agent_id,
          user_id: s.user_id,
          org_id: s.org_id,
          payload: kind === 'agent' ? s.message : { method: s.http?.method, url: s.http?.url, manual: true },
          max_attempts: s.max_retries + 1,
          retry_delay_ms: s.retry_delay * 1000,
          callback: callbackTargetOf(s),
        },
        now,
      );
      await parts.startRun(exec).catch((err: unknown) =>
        parts.logger.warn('manual run not enqueued; left to the outbox', {
          execution_id: exec.id,
          err: (err as Error).message,
        }),
      );
      return { execution_id: exec.id, status: 'queued' };
    },

    async pauseBulk(owner: Owner, kind: ScheduleKind, ids: string[]) {
      const pausable = {
        isId: repo.isId,
        pauseIfActive: (o: Owner, id: string, now: Date) =>
          repo.update(o, kind, id, { is_active: false, updated_at: now }, { is_active: true }),
        exists: async (o: Owner, id: string) => (await repo.get(o, kind, id)) !== null,
      };
      const noun: [string, string] = kind === 'agent' ? ['schedule', 'schedules'] : ['HTTP schedule', 'HTTP schedules'];
      const { paused, ...counts } = await pauseBulk(
        { repo: pausable, clock, present, noun, afterPause: (r) => parts.firing.sync(r) },
        owner,
        ids,
      );
      return { ...counts, paused_schedules: paused };
    },
  };
}
