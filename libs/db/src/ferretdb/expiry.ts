import type { Pool } from 'pg';

import { quoteLiteral, tableOf } from './indexes';

/**
 * TTL indexes, which FerretDB refuses: created without `expireAfterSeconds`, and every `everyMs` one DELETE per TTL
 * index removes what MongoDB's TTL monitor would (dates only, up to a period late), served by FerretDB's btree index.
 */
export function createExpiry(pool: Pool, dbName: string, everyMs: number) {
  /** By collection and index name. */
  const ttls = new Map<string, { collection: string; field: string; seconds: number }>();
  let running: Promise<void> | null = null;
  const sweep = async (now = Date.now()) => {
    for (const { collection, field, seconds } of ttls.values()) {
      const table = await tableOf(pool, dbName, collection);
      const f = quoteLiteral(field);
      if (table)
        await pool.query(
          `DELETE FROM ${table} WHERE (_jsonb -> ${f}) <= $1::jsonb AND (_jsonb -> '$s' -> 'p' -> ${f} ->> 't') = 'date'`,
          [String(now - seconds * 1000)],
        );
    }
  };
  // One sweep at a time; a failed one (the store away) is the next one's work.
  const next = () =>
    void (running ??= sweep()
      .catch(() => undefined)
      .finally(() => (running = null)));
  const timer = setInterval(next, everyMs).unref();
  return {
    register: (collection: string, name: string, field: string, seconds: number) =>
      ttls.set(`${collection}\u0000${name}`, { collection, field, seconds }),
    unregister: (collection: string, name: string) => ttls.delete(`${collection}\u0000${name}`),
    sweep: () => sweep(),
    stop: () => clearInterval(timer),
  };
}
