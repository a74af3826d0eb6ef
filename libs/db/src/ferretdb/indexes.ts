import { createHash } from 'node:crypto';
import type { Pool } from 'pg';

import { isErrorLike, ServiceUnavailableError } from '@platform/errors';

/**
 * Tables and lookup indexes in FerretDB's PostgreSQL: it pushes an equality down as `_jsonb->'f' @> '<value>'`, which
 * only a GIN index serves; `_id` and each index's leading field get one, without a pending list (README).
 */
const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A PostgreSQL error of reaching the server (no SQLSTATE; classes 08, 53, 55, 57) is the store being away: 503. */
export function asOutage(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const away = typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || /^(08|53|55|57)/.test(code);
  return away && isErrorLike(err) ? new ServiceUnavailableError(err) : err;
}

/** The table FerretDB keeps `collection` of database `dbName` in (quoted, or bare), null before it exists. */
export async function tableOf(client: Pick<Pool, 'query'>, dbName: string, collection: string, bare = false) {
  if ((await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [dbName])).rowCount === 0) return null;
  const meta = await client.query<{ table: string }>(
    `SELECT _jsonb->>'table' AS table FROM ${quoteIdent(dbName)}._ferretdb_database_metadata WHERE _jsonb->>'_id' = $1`,
    [collection],
  );
  const table = meta.rows[0]?.table;
  return table && !bare ? `${quoteIdent(dbName)}.${quoteIdent(table)}` : (table ?? null);
}

/** Creates GIN lookup indexes of the collections of `dbName`, each once (one that failed is tried again next time). */
export function createLookupIndexer(pool: Pool, dbName: string) {
  const done = new Map<string, Promise<void>>();
  const ensure = (collection: string, field: string) => {
    const key = `${collection}\n${field}`;
    if (!done.has(key)) {
      const p = (async () => {
        const table = await tableOf(pool, dbName, collection, true);
        if (!table) throw new Error(`${collection} is not created yet`);
        const name = `${table.slice(0, 40)}_${createHash('sha256').update(field).digest('hex').slice(0, 10)}_gin`;
        const create = `CREATE INDEX IF NOT EXISTS ${quoteIdent(name)} ON ${quoteIdent(dbName)}.${quoteIdent(table)}`;
        const made = pool.query(`${create} USING gin ((_jsonb -> ${quoteLiteral(field)})) WITH (fastupdate = off)`);
        await made.catch((err: { code?: string }) => {
          if (err.code !== '23505') throw err; // made at the same time by another process
        });
      })();
      p.catch(() => done.delete(key));
      done.set(key, p);
    }
    return done.get(key)!;
  };
  return (collection: string, fields: string[]) =>
    Promise.all(fields.map((f) => ensure(collection, f))).then(() => undefined);
}

/** Refreshes PostgreSQL's statistics of a database's tables (after a bulk load), so its planner weighs the indexes. */
export async function analyzeTables(pool: Pool, dbName: string) {
  const tables = await pool.query<{ t: string }>('SELECT tablename AS t FROM pg_tables WHERE schemaname = $1', [
    dbName,
  ]);
  for (const { t } of tables.rows) await pool.query(`ANALYZE ${quoteIdent(dbName)}.${quoteIdent(t)}`);
}
