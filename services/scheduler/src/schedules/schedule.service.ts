import { isAgentId, type AgentDirectory } from '@platform/agent-client';
import type { Owner } from '@platform/db';
import { NotFoundError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type {
  ExecutionRecord,
  ExecutionRepository,
  NewSchedule,
  ScheduleKind,
  ScheduleRecord,
  ScheduleRepository,
} from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import { pauseBulk } from '../shared/bulk-pause';
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
  /** Seals HTTP schedules' header values. */
  box: SecretBox;
  firing: Firing;
  /** Puts a stored execution on its run queue; a failure leaves it to the outbox. */
  startRun: (exec: ExecutionRecord) => Promise<unknown>;
  clock: () => Date;
  logger: Logger;
}

type Input = ScheduleInput;
const NOUN: Record<ScheduleKind, string> = { agent: 'Schedule', http: 'HTTP schedule' };

/** Schedule rules for both kinds: ownership, the agent check, sealed headers, and Redis kept in line. */
export function createScheduleService(deps: ScheduleServiceDeps) {
  const { repo, clock } = deps;
  const present = (r: ScheduleRecord) => presentSchedule(r, clock());

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
      const r = await repo.create(owner, fieldsOf(kind, input), clock());
      await deps.firing.sync(r);
      return present(r);
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
      const current = await found(owner, kind, id);
      const next = { ...inputOf(current), ...patch };
      if (kind === 'agent' && 'agent_id' in patch && patch.agent_id !== current.agent_id)
        await assertAgent(apiKey, String(patch.agent_id));
      const now = clock();
      const cronChanged = next.cron_expression !== current.cron_expression || next.timezone !== current.timezone;
      const { kind: _k, is_active: _a, ...fields } = fieldsOf(kind, next, current);
      const set = { ...fields, updated_at: now, ...(cronChanged ? { active_since: now } : {}) };
      const r = await repo.update(owner, kind, id, set);
      if (!r) throw new NotFoundError(NOUN[kind]);
      if (cronChanged) await deps.firing.sync(r);
      return present(r);
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

    /** Confirms the caller owns the schedule (404 otherwise). */
    assertOwned: async (owner: Owner, kind: ScheduleKind, id: string) => void (await found(owner, kind, id)),
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
