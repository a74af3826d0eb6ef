import { MAJORITY, modelFor, mongoose, type Connection, type Model } from '@platform/db';

import type { ExecutionKind, ExecutionStatus } from './execution.types';

export interface ExecutionDoc {
  _id: mongoose.Types.ObjectId;
  kind: ExecutionKind;
  webhook_id: string | null;
  schedule_id: string | null;
  agent_id: string | null;
  user_id: string;
  org_id: string;
  session_id: string | null;
  status: ExecutionStatus;
  success: boolean | null;
  attempt: number;
  max_attempts: number;
  scheduled_for: Date | null;
  triggered_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  duration_ms: number | null;
  /** The run's input as JSON text (toJsonText); `payload` only in documents written before that. */
  payload_json?: string | null;
  payload?: unknown;
  response_status: number | null;
  response_output: string | null;
  error_message: string | null;
  /** The execution this one replays; absent in older documents. */
  replay_of?: string | null;
  fire_key: string;
  retry_delay_ms: number | null;
  /** Times the run was put back on its queue under a new job (run-recovery.ts); absent in older documents. */
  recoveries?: number;
  /** The run's place in its webhook's or schedule's list (see execution.series.ts). */
  series: string;
  seq: number;
  slot: string;
  bucket: string;
  /** Owner, kind (and agent) per UTC day: what the recent lists look up. */
  day_keys: string[];
  /** The insert that stored it (the first id of that `insertMany`): runs stored together are claimed together. */
  ib?: string;
  /** Set on tombstones only (a position filled so that no late insert can take it, or a deleted run). */
  tomb?: string;
  /**
   * Where the run's completion callback goes (its webhook's or schedule's `callback_url` when the run was created) and
   * the signing secret, sealed; absent when it has none. Never shown: the public object has `delivery`.
   */
  cb?: { url: string; secret: string } | null;
  /** The callback's delivery so far (public `delivery`); absent until its first attempt. */
  delivery?: {
    attempts: number;
    last_status: number | null;
    last_error: string | null;
    delivered_at: Date | null;
    next_attempt_at: Date | null;
  } | null;
  /** UTC hour of `triggered_at` (retentionHourOf): what the retention sweep looks runs up by; absent in older documents. */
  hour?: number;
}

/** The retention sweep's key of a run: the UTC hour it was triggered in, as hours since the epoch (execution.retention.ts). */
export const retentionHourOf = (at: Date): number => Math.floor(at.getTime() / 3_600_000);

const { Mixed } = mongoose.Schema.Types;
const str = { type: String, default: null };
const date = { type: Date, default: null };
const num = { type: Number, default: null };

const schema = new mongoose.Schema<ExecutionDoc>(
  {
    kind: { type: String, required: true },
    webhook_id: str,
    schedule_id: str,
    agent_id: str,
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    session_id: str,
    status: { type: String, required: true },
    success: { type: Boolean, default: null },
    attempt: { type: Number, default: 0 },
    max_attempts: { type: Number, required: true },
    scheduled_for: date,
    triggered_at: { type: Date, required: true },
    started_at: date,
    finished_at: date,
    duration_ms: num,
    payload_json: { type: String, default: null },
    payload: Mixed,
    response_status: num,
    response_output: str,
    error_message: str,
    replay_of: str,
    // Unique per run: "<schedule id>:<fire time ms>" for a cron fire, the execution's own id otherwise. A second
    // run of the same fire is a duplicate-key error, whichever replica tries it (FerretDB has no partial indexes,
    // so this is one always-present field rather than a unique (schedule_id, scheduled_for) pair).
    fire_key: { type: String, required: true },
    retry_delay_ms: num,
    recoveries: { type: Number, default: 0 },
    series: { type: String, required: true },
    seq: { type: Number, required: true },
    slot: { type: String, required: true },
    bucket: { type: String, required: true },
    day_keys: { type: [String], default: [] },
    ib: { type: String },
    hour: { type: Number },
    cb: { type: Mixed, default: undefined },
    delivery: { type: Mixed, default: undefined },
  },
  // A run's state must survive a primary election: its writes wait for a majority of a replica set (whatever the
  // connection's default: this option for mongoose's writes, MAJORITY for the repository's native ones), and reads go
  // to the primary, which has them all (libs/db README "Replica sets"). FerretDB accepts both and acknowledges at once.
  {
    versionKey: false,
    minimize: false,
    writeConcern: { w: 'majority', wtimeout: MAJORITY.wtimeoutMS },
    read: 'primary',
  },
);
// Every query of this collection leads with one equality on one of these fields, so that FerretDB (which pushes
// down only top-level equalities, served by the GIN indexes of libs/db's companion) and MongoDB (these indexes)
// both answer it from an index. Lists read bounded buckets; see execution.series.ts.
schema.index({ fire_key: 1 }, { unique: true });
// One run per position of a series: what makes a filled bucket final (execution.filler.ts).
schema.index({ slot: 1 }, { unique: true });
schema.index({ bucket: 1 });
// Runs stored together, claimed together: one batch's few documents (FerretDB reads `_id: {$in}` by a full scan).
schema.index({ ib: 1 });
// A status of one list: two equalities (FerretDB combines the GIN indexes of both).
schema.index({ series: 1, status: 1 });
schema.index({ tomb: 1 });
schema.index({ day_keys: 1, triggered_at: -1 });
schema.index({ status: 1, triggered_at: 1 });
schema.index({ schedule_id: 1, status: 1 });
// The retention sweep reads old runs one hour at a time (one equality each; execution.retention.ts).
schema.index({ hour: 1 });

export function executionModel(conn: Connection): Model<ExecutionDoc> {
  return modelFor(conn, 'Execution', schema, 'executions');
}
