import { MAJORITY, modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

import { EXECUTION_KINDS, EXECUTION_STATUSES } from './execution.schemas';

const { Mixed } = mongoose.Schema.Types;
const str = { type: String, default: null };
const date = { type: Date, default: null };
const num = { type: Number, default: null };

const deliverySchema = new mongoose.Schema(
  {
    attempts: { type: Number, required: true },
    last_status: num,
    last_error: str,
    delivered_at: date,
    next_attempt_at: date,
  },
  { _id: false },
);

const schema = new mongoose.Schema(
  {
    kind: { type: String, enum: EXECUTION_KINDS, required: true },
    webhook_id: str,
    schedule_id: str,
    agent_id: str,
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    session_id: str,
    status: { type: String, enum: EXECUTION_STATUSES, required: true },
    success: { type: Boolean, default: null },
    attempt: { type: Number, default: 0 },
    max_attempts: { type: Number, required: true },
    scheduled_for: date,
    triggered_at: { type: Date, required: true },
    started_at: date,
    finished_at: date,
    duration_ms: num,
    /** The run's input as JSON text (toJsonText); `payload` only in documents written before that. */
    payload_json: str,
    payload: Mixed,
    response_status: num,
    response_output: str,
    error_message: str,
    /** The execution this one replays. */
    replay_of: str,
    /**
     * The W3C `traceparent` of the span the run was created in (the trigger's request, the cron fire): its job carries
     * it, so the worker's spans join that trace, a recovered run's too. Null when the scheduler did not trace it.
     */
    trace_parent: str,
    // Unique per run: "<schedule id>:<fire time ms>" for a cron fire, the execution's own id otherwise, so that a
    // second run of the same fire is a duplicate-key error, whichever replica tries it.
    fire_key: { type: String, required: true },
    retry_delay_ms: num,
    /** Times the run was put back on its queue under a new job (run-recovery.ts). */
    recoveries: { type: Number, default: 0 },
    /** Who holds the current attempt (the claimant's token): a claim sent again after its reply was lost is its own. */
    claim: { type: String },
    /**
     * Where the run's completion callback goes (its webhook's or schedule's `callback_url` when the run was created)
     * and the signing secret, sealed; absent when it has none. Never shown: the public object has `delivery`.
     */
    cb: { type: new mongoose.Schema({ url: String, secret: String }, { _id: false }), default: undefined },
    /** The callback's delivery so far (public `delivery`); absent until its first attempt. */
    delivery: { type: deliverySchema, default: undefined },
  },
  // A run's state must survive a primary election: its writes wait for a majority of a replica set (whatever the
  // connection's default), and reads go to the primary, which has them all (libs/db README "Replica sets").
  {
    versionKey: false,
    minimize: false,
    writeConcern: { w: 'majority', wtimeout: MAJORITY.wtimeoutMS },
    read: 'primary',
  },
);
schema.index({ fire_key: 1 }, { unique: true });
// The lists, newest first: one webhook's or schedule's runs (of their owner), and an owner's recent runs of a kind (of
// one agent). A list always names its statuses (every status when unfiltered), so one index serves it with and
// without a status filter.
schema.index({ webhook_id: 1, user_id: 1, org_id: 1, status: 1, triggered_at: -1, _id: -1 });
schema.index({ schedule_id: 1, user_id: 1, org_id: 1, status: 1, triggered_at: -1, _id: -1 });
schema.index({ user_id: 1, org_id: 1, kind: 1, status: 1, triggered_at: -1, _id: -1 });
schema.index({ user_id: 1, org_id: 1, kind: 1, agent_id: 1, status: 1, triggered_at: -1, _id: -1 });
// The recovery rule's walk over runs not ended, oldest first (run-recovery.ts).
schema.index({ status: 1, triggered_at: 1, _id: 1 });
schema.index({ status: 1, started_at: 1, _id: 1 });
// The retention TTL index on `finished_at` is the scheduler's (execution.retention.ts): its period is configured.

/** A stored execution, as the schema types it. */
export type ExecutionDoc = StoredDoc<typeof schema>;

export function executionModel(conn: Connection) {
  return modelFor(conn, 'Execution', schema, 'executions');
}

export type ExecutionModel = ReturnType<typeof executionModel>;
