import { atomicUpdateOne, isObjectIdHex, newObjectId, type Connection } from '@platform/db';
import { executionModel, type ExecutionDoc } from './execution.model';
import { capUtf8, type ExecutionRecord, type NewExecution, type RunOutcome } from './execution.types';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

function toRecord(d: ExecutionDoc): ExecutionRecord {
  return {
    id: d._id.toHexString(),
    kind: d.kind,
    webhook_id: d.webhook_id ?? null,
    schedule_id: d.schedule_id ?? null,
    agent_id: d.agent_id ?? null,
    user_id: d.user_id,
    org_id: d.org_id,
    session_id: d.session_id ?? null,
    status: d.status,
    success: d.success ?? null,
    attempt: d.attempt,
    max_attempts: d.max_attempts,
    scheduled_for: iso(d.scheduled_for),
    triggered_at: d.triggered_at.toISOString(),
    started_at: iso(d.started_at),
    finished_at: iso(d.finished_at),
    duration_ms: d.duration_ms ?? null,
    payload: d.payload ?? null,
    response_status: d.response_status ?? null,
    response_output: d.response_output ?? null,
    error_message: d.error_message ?? null,
    fire_key: d.fire_key ?? d._id.toHexString(),
    retry_delay_ms: d.retry_delay_ms ?? null,
  };
}

const isDuplicateKey = (err: unknown) => (err as { code?: unknown }).code === 11000;

export interface Owner {
  user_id: string;
  org_id: string;
}

export interface ExecutionQuery {
  webhook_id?: string;
  schedule_id?: string;
  agent_id?: string;
  kinds?: string[];
  success?: boolean;
  since?: Date;
  skip: number;
  limit: number;
}

/**
 * Executions: the one place that writes them (the scheduler creates, the worker runs). State changes are
 * conditional atomic updates, so a run is claimed and finished exactly once however many workers race.
 */
export function createExecutionRepository(conn: Connection) {
  const Execution = executionModel(conn);
  const byId = (id: string) => new Execution({ _id: id })._id;

  /** Stores a new execution (`queued` unless said otherwise); its session id is derived from its own id. */
  async function create(input: NewExecution, now: Date): Promise<ExecutionRecord> {
    const id = newObjectId();
    const skipped = input.status === 'skipped';
    const doc = await Execution.create({
      ...input,
      _id: id,
      fire_key: input.fire_key ?? id,
      session_id: `execution-${id}`,
      status: input.status ?? 'queued',
      attempt: 0,
      triggered_at: now,
      ...(skipped ? { finished_at: now, duration_ms: 0 } : {}),
    });
    return toRecord(doc.toObject());
  }

  return {
    create,
    /** Like `create`, but null when an execution with the same `fire_key` exists: that fire already ran. */
    async createOnce(input: NewExecution & { fire_key: string }, now: Date): Promise<ExecutionRecord | null> {
      try {
        return await create(input, now);
      } catch (err) {
        if (isDuplicateKey(err)) return null;
        throw err;
      }
    },
    async getByFireKey(fireKey: string): Promise<ExecutionRecord | null> {
      const d = await Execution.findOne({ fire_key: fireKey }).lean<ExecutionDoc>();
      return d ? toRecord(d) : null;
    },
    /** True while a run of the schedule has not ended (queued, waiting for a retry, or running). */
    async hasUnfinishedRun(scheduleId: string): Promise<boolean> {
      return (await Execution.exists({ schedule_id: scheduleId, status: { $in: ['queued', 'running'] } })) !== null;
    },
    async get(id: string): Promise<ExecutionRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Execution.findById(id).lean<ExecutionDoc>();
      return d ? toRecord(d) : null;
    },
    async delete(id: string): Promise<void> {
      await Execution.deleteOne({ _id: byId(id) });
    },
    /** Executions still queued, triggered before `olderThan` (and after `after`), oldest first: what the outbox checks. */
    async pendingEnqueue(olderThan: Date, limit: number, after?: Date): Promise<ExecutionRecord[]> {
      const window = after ? { $lt: olderThan, $gt: after } : { $lt: olderThan };
      const docs = await Execution.find({ status: 'queued', triggered_at: window })
        .sort({ triggered_at: 1 })
        .limit(limit)
        .lean<ExecutionDoc[]>();
      return docs.map(toRecord);
    },
    /**
     * Starts an attempt: queued (or running, when a dead worker's job is redelivered) → running, attempt + 1.
     * Null when the execution has already ended.
     */
    async claim(id: string, now: Date): Promise<ExecutionRecord | null> {
      const d = await atomicUpdateOne(
        Execution,
        { _id: byId(id), status: { $in: ['queued', 'running'] } },
        { $set: { status: 'running', started_at: now }, $inc: { attempt: 1 } },
      );
      return d ? toRecord(d as ExecutionDoc) : null;
    },
    /** Ends attempt `attempt`; null when another attempt has taken over or the execution already ended. */
    async finish(id: string, attempt: number, outcome: RunOutcome, now: Date, startedAt: Date): Promise<ExecutionRecord | null> {
      const d = await atomicUpdateOne(
        Execution,
        { _id: byId(id), status: 'running', attempt },
        {
          $set: {
            status: outcome.success ? 'succeeded' : 'failed',
            success: outcome.success,
            finished_at: now,
            duration_ms: Math.max(0, now.getTime() - startedAt.getTime()),
            response_status: outcome.response_status,
            response_output: outcome.response_output === null ? null : capUtf8(outcome.response_output),
            error_message: outcome.error_message === null ? null : capUtf8(outcome.error_message, 4096),
          },
        },
      );
      return d ? toRecord(d as ExecutionDoc) : null;
    },
    /** Records a failed attempt that will be retried: back to queued, keeping the error for the logs. */
    async retryLater(id: string, attempt: number, outcome: RunOutcome): Promise<boolean> {
      const d = await atomicUpdateOne(
        Execution,
        { _id: byId(id), status: 'running', attempt },
        { $set: { status: 'queued', response_status: outcome.response_status, error_message: outcome.error_message } },
      );
      return d !== null;
    },
    /** Fails an execution that has not ended (the queue gave its job up); false when it had already ended. */
    async abandon(id: string, reason: string, now: Date): Promise<ExecutionRecord | null> {
      const d = await atomicUpdateOne(
        Execution,
        { _id: byId(id), status: { $in: ['queued', 'running'] } },
        { $set: { status: 'failed', success: false, finished_at: now, error_message: capUtf8(reason, 4096) } },
      );
      return d ? toRecord(d as ExecutionDoc) : null;
    },
    /** An owner's executions, newest first, with the total of all matches. */
    async list(owner: Owner, q: ExecutionQuery): Promise<{ items: ExecutionRecord[]; total: number }> {
      const filter: Record<string, unknown> = { user_id: owner.user_id, org_id: owner.org_id };
      if (q.webhook_id !== undefined) filter.webhook_id = q.webhook_id;
      if (q.schedule_id !== undefined) filter.schedule_id = q.schedule_id;
      if (q.agent_id !== undefined) filter.agent_id = q.agent_id;
      if (q.kinds) filter.kind = { $in: q.kinds };
      if (q.success !== undefined) filter.success = q.success;
      if (q.since) filter.triggered_at = { $gte: q.since };
      const [docs, total] = await Promise.all([
        Execution.find(filter).sort({ triggered_at: -1, _id: -1 }).skip(q.skip).limit(q.limit).lean<ExecutionDoc[]>(),
        Execution.countDocuments(filter),
      ]);
      return { items: docs.map(toRecord), total };
    },
    async init(): Promise<void> {
      await Execution.init();
    },
  };
}

export type ExecutionRepository = ReturnType<typeof createExecutionRepository>;

/** The public Execution object: the record without server-side fields. */
export function presentExecution(r: ExecutionRecord) {
  const { org_id: _org, fire_key: _key, retry_delay_ms: _delay, ...pub } = r;
  return pub;
}
