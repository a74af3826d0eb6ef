import { isAgentId, type AgentDirectory } from '@platform/agent-client';
import type { Owner } from '@platform/db';
import { ConflictError, NotFoundError } from '@platform/errors';
import type { NewSchedule, ScheduleKind, ScheduleRecord } from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import { CALLBACK_CHANGE_ATTEMPTS, withShownSecret, type CallbackChange } from '../shared/callback-config';
import { assertCallableTarget } from '../shared/target-url';
import { NOUN, type ScheduleParts } from './schedule.deps';
import { httpTargetOf, presentSchedule } from './schedule.present';
import type {
  AgentScheduleInput,
  HttpScheduleInput,
  ScheduleInput,
  SchedulePatch,
  ScheduleView,
} from './schedule.types';

type Input = ScheduleInput;

async function assertAgent(agents: AgentDirectory, apiKey: string, agentId: string): Promise<void> {
  if (!isAgentId(agentId)) throw new NotFoundError('Agent');
  await agents.assertOwnedAgent(apiKey, agentId);
}

/** The stored fields of a full input of `kind` (create, or an update merged over the current record). */
function fieldsOf(box: SecretBox, kind: ScheduleKind, input: Input, previous?: ScheduleRecord): NewSchedule {
  const { cron_expression, timezone, max_retries, retry_delay, overlap_policy } = input;
  const common = {
    kind,
    cron_expression,
    timezone,
    max_retries,
    retry_delay,
    overlap_policy,
    is_active: previous?.is_active ?? true,
  };
  if (kind === 'agent') {
    const a = input as AgentScheduleInput;
    return { ...common, agent_id: a.agent_id, message: a.message, http: null };
  }
  return {
    ...common,
    agent_id: null,
    message: '',
    http: httpTargetOf(input as HttpScheduleInput, box, previous?.http),
  };
}

/** The current record as an input, so a PATCH can be merged over it (header values stay masked). */
function inputOf(r: ScheduleRecord, now: Date): Input {
  const view = presentSchedule(r, now) as ScheduleView & Partial<HttpScheduleInput> & Partial<AgentScheduleInput>;
  return { ...view, body: r.http?.body ?? null };
}

/**
 * A schedule's create and update (a PATCH merged over it) and its callback secret: the agent or target check, sealed
 * headers, Redis kept in line.
 */
export function createScheduleEdits(parts: ScheduleParts) {
  const { repo, clock, present, allow, callbacks, found } = parts;

  /**
   * Stores `change` made from the schedule as read (compare-and-set on its callback), reading again when another
   * request changed the callback meanwhile (`first`: the schedule as just read, if it was); the stored record and the
   * secret it generated.
   */
  async function changeCallback(
    owner: Owner,
    kind: ScheduleKind,
    id: string,
    change: (current: ScheduleRecord) => { set: Partial<ScheduleRecord>; callback: CallbackChange | null },
    first?: ScheduleRecord,
  ): Promise<{ r: ScheduleRecord; shown?: string }> {
    for (let i = 0; i < CALLBACK_CHANGE_ATTEMPTS; i++) {
      const current = i === 0 && first ? first : await found(owner, kind, id);
      const { set, callback } = change(current);
      const r = await repo.update(owner, kind, id, { ...set, ...callback?.set }, callback?.expect ?? {});
      if (r) return { r, shown: callback?.shown };
      if (!callback) throw new NotFoundError(NOUN[kind]);
    }
    throw new ConflictError(`The ${NOUN[kind]}'s callback is being changed by another request; retry`);
  }

  return {
    async create(owner: Owner, apiKey: string, kind: ScheduleKind, input: Input): Promise<ScheduleView> {
      if (kind === 'agent') await assertAgent(parts.agents, apiKey, (input as AgentScheduleInput).agent_id);
      else assertCallableTarget((input as HttpScheduleInput).url, allow, 'url');
      const callback = callbacks.onCreate(input.callback_url);
      const r = await repo.create(owner, { ...fieldsOf(parts.box, kind, input), ...callback.fields }, clock());
      await parts.firing.sync(r);
      return withShownSecret(present(r), callback.shown);
    },

    async update(
      owner: Owner,
      apiKey: string,
      kind: ScheduleKind,
      id: string,
      patch: SchedulePatch,
    ): Promise<ScheduleView> {
      const first = await found(owner, kind, id);
      if (kind === 'agent' && 'agent_id' in patch && patch.agent_id !== first.agent_id)
        await assertAgent(parts.agents, apiKey, String(patch.agent_id));
      if (kind === 'http') assertCallableTarget((patch as Partial<HttpScheduleInput>).url, allow, 'url');
      let cronChanged = false;
      const { r, shown } = await changeCallback(
        owner,
        kind,
        id,
        (current) => {
          const next = { ...inputOf(current, clock()), ...patch };
          const now = clock();
          cronChanged = next.cron_expression !== current.cron_expression || next.timezone !== current.timezone;
          const { kind: _k, is_active: _a, ...fields } = fieldsOf(parts.box, kind, next, current);
          return {
            set: { ...fields, updated_at: now, ...(cronChanged ? { active_since: now } : {}) },
            callback: callbacks.onPatch(current, patch.callback_url),
          };
        },
        first,
      );
      if (cronChanged) await parts.firing.sync(r);
      return withShownSecret(present(r), shown);
    },

    /** A new callback secret, shown in this answer only; 409 when the schedule has no callback_url. */
    async regenerateCallbackSecret(owner: Owner, kind: ScheduleKind, id: string): Promise<ScheduleView> {
      const { r, shown } = await changeCallback(owner, kind, id, (current) => ({
        set: { updated_at: clock() },
        callback: callbacks.rotate(current, NOUN[kind]),
      }));
      return withShownSecret(present(r), shown);
    },
  };
}
