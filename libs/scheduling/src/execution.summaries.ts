import { atomicUpdateOne, isDuplicateKeyError, modelFor, mongoose, type Connection, type Model } from '@platform/db';

/**
 * What the filler (execution.filler.ts) records of a series, so that lists neither count nor sort its runs.
 *
 * Root, one per series: every bucket below `filled` is final (each of its positions holds a run or a tombstone,
 * so its runs are exactly B minus its tombstones) and has a bucket summary. `depth` is the deepest inversion seen
 * in those buckets: a run of bucket m is never older than every run of bucket m - depth - 1 (see `reach`).
 */
export interface SeriesRootDoc {
  _id: string;
  filled: number;
  depth: number;
  /** Set before the first tombstone of the series is written: until then lists need not look for any. */
  tombs?: boolean;
  /**
   * Buckets below `base` (≤ filled) were removed whole by the retention sweep (execution.retention.ts): lists count
   * them as empty and read neither them nor their summaries. Absent: 0.
   */
  base?: number;
}

/**
 * Bucket summary, one per final bucket, written once: the oldest and newest key of its runs (a key is
 * `(triggered_at, id)`, the lists' order), `pmax` the newest key in buckets 0..k, and `reach` the first bucket j
 * with `pmax[j]` newer than this bucket's oldest run (k when none is). Keys are bounds: deleting a run later (it
 * becomes a tombstone) leaves them true.
 */
export interface BucketSummaryDoc {
  _id: string;
  series: string;
  k: number;
  lo_t: Date | null;
  lo_id: string | null;
  hi_t: Date | null;
  hi_id: string | null;
  pmax_t: Date | null;
  pmax_id: string | null;
  reach: number;
}

const rootSchema = new mongoose.Schema<SeriesRootDoc>(
  {
    _id: String,
    filled: { type: Number, required: true },
    depth: { type: Number, required: true },
    tombs: Boolean,
    base: Number,
  },
  { versionKey: false },
);

const nullable = <T>(type: T) => ({ type, default: null });
const bucketSchema = new mongoose.Schema<BucketSummaryDoc>(
  {
    _id: String,
    series: { type: String, required: true },
    k: { type: Number, required: true },
    lo_t: nullable(Date),
    lo_id: nullable(String),
    hi_t: nullable(Date),
    hi_id: nullable(String),
    pmax_t: nullable(Date),
    pmax_id: nullable(String),
    reach: { type: Number, required: true },
  },
  { versionKey: false },
);

/** Records that the series has (or is about to have) a tombstone; call before writing one. */
export async function markTombstones(Roots: Model<SeriesRootDoc>, series: string): Promise<void> {
  const root = await Roots.findById(series).lean<SeriesRootDoc>();
  if (root?.tombs) return;
  if (!root) {
    try {
      await Roots.collection.insertOne({ _id: series, filled: 0, depth: 0, tombs: true } as never);
      return;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // created meanwhile: set the flag on it
    }
  }
  await atomicUpdateOne(Roots, { _id: series }, { $set: { tombs: true } });
}

export function seriesRootModel(conn: Connection): Model<SeriesRootDoc> {
  return modelFor(conn, 'ExecutionSeries', rootSchema, 'execution_series');
}

export function bucketSummaryModel(conn: Connection): Model<BucketSummaryDoc> {
  return modelFor(conn, 'ExecutionBucket', bucketSchema, 'execution_buckets');
}
