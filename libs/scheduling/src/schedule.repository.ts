import {
  findPage,
  fromJsonText,
  isObjectIdHex,
  listEqualities,
  newObjectId,
  ownerFilter,
  toJsonText,
  type Connection,
  type ListFilter,
  type Owner,
} from '@platform/db';

import { fireGroupOf } from './schedule.fire-group';
import { scheduleModel, type HttpTargetDoc, type ScheduleDoc } from './schedule.model';
import type { HttpTarget, NewSchedule, ScheduleKind, ScheduleRecord } from './schedule.types';

function httpOf(h: HttpTargetDoc): HttpTarget {
  return {
    name: h.name,
    url: h.url,
    method: h.method as HttpTarget['method'],
    timeout_ms: h.timeout_ms,
    headers_sealed: fromJsonText(h.headers_json, h.headers_sealed ?? {}) as Record<string, string>,
    query: fromJsonText(h.query_json, h.query ?? {}) as Record<string, string>,
    body: fromJsonText(h.body_json, h.body ?? null),
  };
}

function storedHttp(h: HttpTarget) {
  const { headers_sealed, query, body, ...rest } = h;
  return {
    ...rest,
    headers_json: JSON.stringify(headers_sealed),
    query_json: JSON.stringify(query),
    body_json: toJsonText(body),
  };
}

/** The stored form of schedule fields (an HTTP target's free-form parts as JSON text). */
function stored<T extends { http?: HttpTarget | null }>(fields: T) {
  if (fields.http === undefined) return fields;
  return { ...fields, http: fields.http ? storedHttp(fields.http) : null };
}

function toRecord(d: ScheduleDoc): ScheduleRecord {
  return {
    id: d._id.toHexString(),
    kind: d.kind,
    user_id: d.user_id,
    org_id: d.org_id,
    agent_id: d.agent_id ?? null,
    message: d.message ?? '',
    http: d.http ? httpOf(d.http) : null,
    cron_expression: d.cron_expression,
    timezone: d.timezone,
    max_retries: d.max_retries,
    retry_delay: d.retry_delay,
    overlap_policy: d.overlap_policy,
    is_active: d.is_active ?? true,
    active_since: d.active_since,
    created_at: d.created_at,
    updated_at: d.updated_at ?? null,
    last_run_at: d.last_run_at ?? null,
    last_run_success: d.last_run_success ?? null,
    run_count: d.run_count ?? 0,
    callback_url: d.callback_url ?? null,
    callback_secret_sealed: d.callback_secret_sealed ?? null,
  };
}

/** What the reconciler compares with Redis. */
export interface ActiveSpec {
  id: string;
  cron_expression: string;
  timezone: string;
  /** As stored (null before fire groups existed). */
  fire_group: string | null;
}

/** A fire group's read asks for this many documents in its first reply (the server caps it at 16 MiB). */
const FIRE_GROUP_READ_BATCH = 100_000;

const scoped = (owner: Owner, kind: ScheduleKind) => ({ ...ownerFilter(owner), kind });

/** The fire group an update sets: from the new rule when it names both parts, unknown when only one (rare). */
function groupOf(id: string, set: Partial<ScheduleRecord>): { fire_group?: string | null } {
  const { cron_expression: cron, timezone: tz } = set;
  if (cron !== undefined && tz !== undefined) return { fire_group: fireGroupOf(id, cron, tz) };
  return cron !== undefined || tz !== undefined ? { fire_group: null } : {};
}

/**
 * Schedules in MongoDB, the source of truth for what fires. Owner-facing calls are scoped to (user, org, kind);
 * `getById` and `activePage` serve the worker and the reconciler. Ids that are not 24-char hex match nothing.
 */
export function createScheduleRepository(conn: Connection) {
  const Schedule = scheduleModel(conn);

  return {
    isId: (id: string): boolean => isObjectIdHex(id),

    async create(owner: Owner, fields: NewSchedule, now: Date): Promise<ScheduleRecord> {
      const id = newObjectId();
      const fire_group = fireGroupOf(id, fields.cron_expression, fields.timezone);
      const doc = await Schedule.create({
        ...stored(fields),
        _id: id,
        ...ownerFilter(owner),
        created_at: now,
        active_since: now,
        fire_group,
      });
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

    list: (owner: Owner, kind: ScheduleKind, f: ListFilter): Promise<{ items: ScheduleRecord[]; total: number }> =>
      findPage(Schedule, { ...scoped(owner, kind), ...listEqualities(f) }, f, toRecord),

    /** `$set` on the owner's schedule when it also matches `extra`; the updated record, or null. */
    async update(
      owner: Owner,
      kind: ScheduleKind,
      id: string,
      set: Partial<ScheduleRecord>,
      extra: Record<string, unknown> = {},
    ): Promise<ScheduleRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Schedule.findOneAndUpdate(
        { _id: id, ...scoped(owner, kind), ...extra },
        { $set: { ...stored(set), ...groupOf(id, set) } },
        { returnDocument: 'after' },
      ).lean<ScheduleDoc>();
      return d ? toRecord(d) : null;
    },

    /**
     * The schedules of a fire group (schedule.fire-group.ts), active or not: one indexed equality. A schedule whose
     * rule changed has left its old group.
     */
    async inFireGroup(group: string): Promise<ScheduleRecord[]> {
      // In one reply: no cursor stays open between a group's read and the next (a hundred come due at once).
      const docs = await Schedule.find({ fire_group: group }).batchSize(FIRE_GROUP_READ_BATCH).lean<ScheduleDoc[]>();
      return docs.map(toRecord);
    },

    /** Stores the fire group of a schedule written before groups existed, unless its rule changed meanwhile. */
    async storeFireGroup(spec: ActiveSpec): Promise<void> {
      if (!isObjectIdHex(spec.id)) return;
      const fire_group = fireGroupOf(spec.id, spec.cron_expression, spec.timezone);
      await Schedule.updateOne(
        { _id: spec.id, cron_expression: spec.cron_expression, timezone: spec.timezone },
        { $set: { fire_group } },
      );
    },

    async delete(owner: Owner, kind: ScheduleKind, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      return (await Schedule.deleteOne({ _id: id, ...scoped(owner, kind) })).deletedCount === 1;
    },

    /** Every active schedule (all owners), streamed in `_id` order with only what the reconciler compares. */
    async *activeSpecs(): AsyncGenerator<ActiveSpec> {
      const cursor = Schedule.find({ is_active: true }, { cron_expression: 1, timezone: 1, fire_group: 1 })
        .sort({ _id: 1 })
        .lean<ScheduleDoc[]>()
        .cursor({ batchSize: 1000 });
      for await (const d of cursor as AsyncIterable<
        Pick<ScheduleDoc, '_id' | 'cron_expression' | 'timezone' | 'fire_group'>
      >) {
        yield {
          id: d._id.toHexString(),
          cron_expression: d.cron_expression,
          timezone: d.timezone,
          fire_group: d.fire_group ?? null,
        };
      }
    },

    async init(): Promise<void> {
      await Schedule.init();
    },
  };
}

export type ScheduleRepository = ReturnType<typeof createScheduleRepository>;
