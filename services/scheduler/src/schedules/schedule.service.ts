import { isAgentId, type AgentDirectory } from '@platform/agent-client';
import type { Owner } from '@platform/db';
import { ConflictError, NotFoundError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { AllowEntry } from '@platform/outbound';
import {
  callbackTargetOf,
  type CallbackTarget,
  type ExecutionRecord,
  type ExecutionRepository,
  type NewSchedule,
  type ScheduleKind,
  type ScheduleRecord,
  type ScheduleRepository,
} from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import { pauseBulk } from '../shared/bulk-pause';
import {
  CALLBACK_CHANGE_ATTEMPTS,
  createCallbackSecrets,
  withShownSecret,
  type CallbackChange,
} from '../shared/callback-config';
import { assertCallableTarget } from '../shared/target-url';
import { httpTargetOf, presentSchedule } from './schedule.present';
import type { ScheduleTriggerResult } from './schedule.schemas.types';
import type {
  AgentScheduleInput,
  HttpScheduleInput,
  ListFilter,
  ScheduleInput,
  SchedulePatch,
  ScheduleView,
} from './schedule.types';

/** Keeps Redis's firing state in line with a schedule (failures are logged; the reconciler repairs them). */
export interface Firing {
  sync(s: ScheduleRecord): Promise<void>;
  remove(scheduleId: string): Promise<void>;
}

export interface ScheduleServiceDeps {
  repo: ScheduleRepository;
  executions: ExecutionRepository;
  agents: AgentDirectory;
  /** Seals HTTP schedules' header values and callback secrets (the worker opens both). */
  box: SecretBox;
  newCallbackSecret?: () => string;
  firing: Firing;
  /** Puts a stored execution on its run queue; a failure leaves it to the outbox. */
  startRun: (exec: ExecutionRecord) => Promise<unknown>;
  clock: () => Date;
  logger: Logger;
  /** Hosts a target or callback may name although loopback or private (OUTBOUND_ALLOW_HOSTS, as the worker's). */
  allow?: AllowEntry[];
}

type Input = ScheduleInput;
const NOUN: Record<ScheduleKind, string> = { agent: 'Schedule', http: 'HTTP schedule' };

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

  async function assertAgent(apiKey: string, agentId: string): Promise<void> {
    if (!isAgentId(agentId)) throw new NotFoundError('Agent');
    await deps.agents.assertOwnedAgent(apiKey, agentId);
  }

  /** The stored fields of a full input of `kind` (create, or an update merged over the current record). */
  function fieldsOf(kind: ScheduleKind, input: Input, previous?: ScheduleRecord): NewSchedule {
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
      http: httpTargetOf(input as HttpScheduleInput, deps.box, previous?.http),
    };
  }

  /** The current record as an input, so a PATCH can be merged over it (header values stay masked). */
  function inputOf(r: ScheduleRecord): Input {
    const view = present(r) as ScheduleView & Partial<HttpScheduleInput> & Partial<AgentScheduleInput>;
    return { ...view, body: r.http?.body ?? null };
  }

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

  async function setActive(owner: Owner, kind: ScheduleKind, id: string, active: boolean): Promise<ScheduleView> {
    const now = clock();
    const set = active
      ? { is_active: true, active_since: now, updated_at: now }
      : { is_active: false, updated_at: now };
    const changed = await repo.update(owner, kind, id, set, { is_active: !active });
    if (changed) await deps.firing.sync(changed);
    return present(changed ?? (await found(owner, kind, id)));
  }

  return {
    async create(owner: Owner, apiKey: string, kind: ScheduleKind, input: Input): Promise<ScheduleView> {
      if (kind === 'agent') await assertAgent(apiKey, (input as AgentScheduleInput).agent_id);
      else assertCallableTarget((input as HttpScheduleInput).url, allow, 'url');
      const callback = callbacks.onCreate(input.callback_url);
      const r = await repo.create(owner, { ...fieldsOf(kind, input), ...callback.fields }, clock());
      await deps.firing.sync(r);
      return withShownSecret(present(r), callback.shown);
    },

    async list(
      owner: Owner,
      kind: ScheduleKind,
      filter: ListFilter,
    ): Promise<{ schedules: ScheduleView[]; total: number }> {
      const { items, total } = await repo.list(owner, kind, filter);
      return { schedules: items.map(present), total };
    },

    get: async (owner: Owner, kind: ScheduleKind, id: string) => present(await found(owner, kind, id)),

    async update(
      owner: Owner,
      apiKey: string,
      kind: ScheduleKind,
      id: string,
      patch: SchedulePatch,
    ): Promise<ScheduleView> {
      const first = await found(owner, kind, id);
      if (kind === 'agent' && 'agent_id' in patch && patch.agent_id !== first.agent_id)
        await assertAgent(apiKey, String(patch.agent_id));
      if (kind === 'http') assertCallableTarget((patch as Partial<HttpScheduleInput>).url, allow, 'url');
      let cronChanged = false;
      const { r, shown } = await changeCallback(
        owner,
        kind,
        id,
        (current) => {
          const next = { ...inputOf(current), ...patch };
          const now = clock();
          cronChanged = next.cron_expression !== current.cron_expression || next.timezone !== current.timezone;
          const { kind: _k, is_active: _a, ...fields } = fieldsOf(kind, next, current);
          return {
            set: { ...fields, updated_at: now, ...(cronChanged ? { active_since: now } : {}) },
            callback: callbacks.onPatch(current, patch.callback_url),
          };
        },
        first,
      );
      if (cronChanged) await deps.firing.sync(r);
      return withShownSecret(present(r), shown);
    },

    async delete(owner: Owner, kind: ScheduleKind, id: string): Promise<void> {
      if (!(await repo.delete(owner, kind, id))) throw new NotFoundError(NOUN[kind]);
      await deps.firing.remove(id);
    },

    pause: (owner: Owner, kind: ScheduleKind, id: string) => setActive(owner, kind, id, false),
    resume: (owner: Owner, kind: ScheduleKind, id: string) => setActive(owner, kind, id, true),

    /** Runs the schedule now, outside its cron (also while paused); overlap policy does not apply. */
    async trigger(owner: Owner, kind: ScheduleKind, id: string): Promise<ScheduleTriggerResult> {
      const s = await found(owner, kind, id);
      const now = clock();
      const exec = await deps.executions.create(
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
      await deps.startRun(exec).catch((err: unknown) =>
        deps.logger.warn('manual run not enqueued; left to the outbox', {
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
        { repo: pausable, clock, present, noun, afterPause: (r) => deps.firing.sync(r) },
        owner,
        ids,
      );
      return { ...counts, paused_schedules: paused };
    },

    /** A new callback secret, shown in this answer only; 409 when the schedule has no callback_url. */
    async regenerateCallbackSecret(owner: Owner, kind: ScheduleKind, id: string): Promise<ScheduleView> {
      const { r, shown } = await changeCallback(owner, kind, id, (current) => ({
        set: { updated_at: clock() },
        callback: callbacks.rotate(current, NOUN[kind]),
      }));
      return withShownSecret(present(r), shown);
    },

    /** The caller's schedule's callback target (404 when not the caller's), for the runs a replay creates. */
    async callbackTarget(owner: Owner, kind: ScheduleKind, id: string): Promise<CallbackTarget | null> {
      return callbackTargetOf(await found(owner, kind, id));
    },

    /** Confirms the caller owns the schedule (404 otherwise). */
    assertOwned: async (owner: Owner, kind: ScheduleKind, id: string) => void (await found(owner, kind, id)),
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
