import type { Owner } from '@platform/db';
import { NotFoundError } from '@platform/errors';
import { callbackTargetOf, type CallbackTarget, type ScheduleKind, type ScheduleRecord } from '@platform/scheduling';

import { createCallbackSecrets } from '../shared/callback-config';
import { createScheduleControls } from './schedule.controls';
import { NOUN, type ScheduleParts, type ScheduleServiceDeps } from './schedule.deps';
import { createScheduleEdits } from './schedule.edit';
import { presentSchedule } from './schedule.present';
import type { ListFilter, ScheduleView } from './schedule.types';

export type { Firing, ScheduleServiceDeps } from './schedule.deps';

/** Schedule rules for both kinds: ownership, the agent check, sealed headers, and Redis kept in line. */
export function createScheduleService(deps: ScheduleServiceDeps) {
  const { repo, clock } = deps;
  const present = (r: ScheduleRecord) => presentSchedule(r, clock());
  const allow = deps.allow ?? [];
  const callbacks = createCallbackSecrets({ box: deps.box, newSecret: deps.newCallbackSecret, allow });

  async function found(owner: Owner, kind: ScheduleKind, id: string): Promise<ScheduleRecord> {
    const r = await repo.get(owner, kind, id);
    if (!r) throw new NotFoundError(NOUN[kind]);
    return r;
  }

  const parts: ScheduleParts = { ...deps, allow, callbacks, present, found };
  const edits = createScheduleEdits(parts);
  const controls = createScheduleControls(parts);

  return {
    // Create, update and the callback secret: schedule.edit.ts.
    ...edits,

    async list(
      owner: Owner,
      kind: ScheduleKind,
      filter: ListFilter,
    ): Promise<{ schedules: ScheduleView[]; total: number }> {
      const { items, total } = await repo.list(owner, kind, filter);
      return { schedules: items.map(present), total };
    },

    get: async (owner: Owner, kind: ScheduleKind, id: string) => present(await found(owner, kind, id)),

    async delete(owner: Owner, kind: ScheduleKind, id: string): Promise<void> {
      if (!(await repo.delete(owner, kind, id))) throw new NotFoundError(NOUN[kind]);
      await deps.firing.remove(id);
    },

    // Pause, resume, manual runs and bulk pause: schedule.controls.ts.
    ...controls,

    /** The caller's schedule's callback target (404 when not the caller's), for the runs a replay creates. */
    async callbackTarget(owner: Owner, kind: ScheduleKind, id: string): Promise<CallbackTarget | null> {
      return callbackTargetOf(await found(owner, kind, id));
    },

    /** Confirms the caller owns the schedule (404 otherwise). */
    assertOwned: async (owner: Owner, kind: ScheduleKind, id: string) => void (await found(owner, kind, id)),
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
