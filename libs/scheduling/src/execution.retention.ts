import type { Connection } from '@platform/db';

import { executionModel } from './execution.model';

/** The retention TTL index of the executions. */
export const RETENTION_INDEX = 'finished_at_ttl';
const DAY_S = 86_400;

/**
 * Execution retention (EXECUTION_RETENTION_DAYS): a TTL index on `finished_at`, so the server removes every run that
 * ended more than `days` ago (queued and running runs have no `finished_at` and stay). Made to match the setting at
 * the scheduler's start: created, changed (dropped and made again with the new period) or, with 0, dropped. Lists and
 * counts read what is stored, so they stay exact; removal lags by up to a minute (the TTL monitor's period).
 */
export async function ensureExecutionRetention(conn: Connection, days: number): Promise<'kept' | 'set' | 'off'> {
  const Execution = executionModel(conn);
  const existing = (await Execution.listIndexes()).find((i) => (i as { name?: unknown }).name === RETENTION_INDEX) as
    { expireAfterSeconds?: number } | undefined;
  const seconds = days * DAY_S;
  if (existing && days > 0 && existing.expireAfterSeconds === seconds) return 'kept';
  if (existing)
    await Execution.collection.dropIndex(RETENTION_INDEX).catch((err: unknown) => {
      if ((err as { code?: number }).code !== 27) throw err; // another replica dropped it first
    });
  if (days === 0) return 'off';
  await Execution.collection.createIndex({ finished_at: 1 }, { name: RETENTION_INDEX, expireAfterSeconds: seconds });
  return 'set';
}
