import { atomicUpdateOne, isObjectIdHex, type Connection } from '@platform/db';
import type { Owner } from './execution.repository';
import { scheduleModel, type ScheduleDoc } from './schedule.model';
import type { NewSchedule, ScheduleKind, ScheduleRecord } from './schedule.types';

function toRecord(d: ScheduleDoc): ScheduleRecord {
  return {
    id: d._id.toHexString(),
    kind: d.kind,
    user_id: d.user_id,
    org_id: d.org_id,
    agent_id: d.agent_id ?? null,
    message: d.message ?? '',
    http: d.http
      ? { ...d.http, headers_sealed: d.http.headers_sealed ?? {}, query: d.http.query ?? {}, body: d.http.body ?? null }
      : null,
    cron_expression: d.cron_expression,
    timezone: d.timezone,
    max_retries: d.max_retries,
    retry_delay: d.retry_delay,
    overlap_policy: d.overlap_policy,
    is_active: d.is_active,
    active_since: d.active_since,
    created_at: d.created_at,
    updated_at: d.updated_at ?? null,
    last_run_at: d.last_run_at ?? null,
    last_run_success: d.last_run_success ?? null,
    run_count: d.run_count ?? 0,
  };
}

/** What the reconciler compares with Redis. */
export interface ActiveSpec {
  id: string;
  cron_expression: string;
  timezone: string;
}

export interface ScheduleFilter {
  agent_id?: string;
  is_active?: boolean;
  skip: number;
  limit: number;
}

const scoped = (owner: Owner, kind: ScheduleKind) => ({ user_id: owner.user_id, org_id: owner.org_id, kind });

/**
 * Schedules in MongoDB, the source of truth for what fires. Owner-facing calls are scoped to (user, org, kind);
 * `getById` and `activePage` serve the worker and the reconciler. Ids that are not 24-char hex match nothing.
 */
export function createScheduleRepository(conn: Connection) {
  const Schedule = scheduleModel(conn);

  return {
    isId: (id: string): boolean => isObjectIdHex(id),

    async create(owner: Owner, fields: NewSchedule, now: Date): Promise<ScheduleRecord> {
      const doc = await Schedule.create({ ...fields, user_id: owner.user_id, org_id: owner.org_id, created_at: now, active_since: now });
      return toRecord(doc.toObject());
    },

    async get(owner: Owner, kind: ScheduleKind, id: string): Promise<ScheduleRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Schedule.findOne({ _id: id, ...scoped(owner, kind) }).lean<ScheduleDoc>();
      return d ? toRecord(d) : null;
    },

    async getById(id: string): Promise<ScheduleRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Schedule.findById(id).lean<ScheduleDoc>();
      return d ? toRecord(d) : null;
    },

    async list(owner: Owner, kind: ScheduleKind, f: ScheduleFilter): Promise<{ items: ScheduleRecord[]; total: number }> {
      const filter: Record<string, unknown> = scoped(owner, kind);
      if (f.agent_id !== undefined) filter.agent_id = f.agent_id;
      if (f.is_active !== undefined) filter.is_active = f.is_active;
      const [docs, total] = await Promise.all([
        Schedule.find(filter).sort({ created_at: -1, _id: -1 }).skip(f.skip).limit(f.limit).lean<ScheduleDoc[]>(),
        Schedule.countDocuments(filter),
      ]);
      return { items: docs.map(toRecord), total };
    },

    /** `$set` on the owner's schedule when it also matches `extra`; the updated record, or null. */
    async update(owner: Owner, kind: ScheduleKind, id: string, set: Partial<ScheduleDoc>, extra: Record<string, unknown> = {}): Promise<ScheduleRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await atomicUpdateOne(Schedule, { _id: id, ...scoped(owner, kind), ...extra }, { $set: set });
      return d ? toRecord(d) : null;
    },

    async delete(owner: Owner, kind: ScheduleKind, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      return (await Schedule.deleteOne({ _id: id, ...scoped(owner, kind) })).deletedCount === 1;
    },

    /**
     * Every active schedule (all owners), streamed in one pass with only what the reconciler compares: one scan
     * rather than sorted pages (FerretDB sorts in process, so each page would read them all again).
     */
    async *activeSpecs(): AsyncGenerator<ActiveSpec> {
      const cursor = Schedule.find({ is_active: true }, { cron_expression: 1, timezone: 1 }).lean<ScheduleDoc[]>().cursor({ batchSize: 1000 });
      for await (const d of cursor as AsyncIterable<Pick<ScheduleDoc, '_id' | 'cron_expression' | 'timezone'>>) {
        yield { id: d._id.toHexString(), cron_expression: d.cron_expression, timezone: d.timezone };
      }
    },

    async init(): Promise<void> {
      await Schedule.init();
    },
  };
}

export type ScheduleRepository = ReturnType<typeof createScheduleRepository>;
