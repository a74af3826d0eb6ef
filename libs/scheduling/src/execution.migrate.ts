import { isDuplicateKeyError, type Connection } from '@platform/db';

/**
 * Brings an executions collection written by earlier versions up to date, once per database (idempotent, and safe
 * when several processes start at once). Those versions placed each run at a numbered position of its list, kept in
 * buckets, and filled positions of deleted or failed inserts with tombstones; lists now come from compound indexes.
 * - Their indexes go: above all the unique index on `slot`, which every new run (having no slot) would collide on.
 * - Tombstones go: they are no runs (they have no status) and would never expire.
 * - The collections of that scheme go (list roots, bucket summaries, the retention sweep's state, revision claims).
 * The other fields they left on runs (`series`, `seq`, `bucket`, `day_keys`, `ib`, `hour`, `_rev`) are ignored.
 */
export const LEGACY_EXECUTION_INDEXES = [
  'slot_1',
  'bucket_1',
  'ib_1',
  'series_1_status_1',
  'tomb_1',
  'day_keys_1_triggered_at_-1',
  'status_1_triggered_at_1',
  'schedule_id_1_status_1',
  'hour_1',
];
export const LEGACY_COLLECTIONS = ['execution_series', 'execution_buckets', 'execution_retention', '_revision_claims'];
const MARK = { _id: 'executions-2' };

/** MongoDB's answer when an index or collection to drop is not there (another process dropped it first). */
const isGone = (err: unknown) =>
  [26, 27].includes((err as { code?: number }).code ?? -1) ||
  /not found|ns not found|doesn't exist/i.test(String((err as Error).message));

const unlessGone = (err: unknown) => {
  if (!isGone(err)) throw err;
};

export async function migrateExecutions(conn: Connection): Promise<void> {
  const db = conn.db!;
  const migrations = db.collection<{ _id: string; at: Date }>('migrations');
  if (await migrations.findOne(MARK)) return;
  const executions = db.collection('executions');
  const present = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  if (present.has('executions')) {
    const names = new Set(
      (await executions.listIndexes().toArray()).map((i) => String((i as { name?: unknown }).name)),
    );
    // Tombstones first, found through their own index while it is still there.
    if (names.has('tomb_1')) await executions.deleteMany({ tomb: { $type: 'string' } });
    for (const name of LEGACY_EXECUTION_INDEXES)
      if (names.has(name)) await executions.dropIndex(name).catch(unlessGone);
  }
  for (const name of LEGACY_COLLECTIONS) if (present.has(name)) await db.dropCollection(name).catch(unlessGone);
  await migrations.insertOne({ ...MARK, at: new Date() }).catch((err: unknown) => {
    if (!isDuplicateKeyError(err)) throw err; // another process finished it at the same time
  });
}
