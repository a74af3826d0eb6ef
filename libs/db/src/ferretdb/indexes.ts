import { createHash } from 'node:crypto';
import { Client, type ClientBase } from 'pg';

import { ServiceUnavailableError } from '@platform/errors';

/**
 * Lookup indexes and table access on FerretDB's PostgreSQL. FerretDB pushes a top-level equality down as
 * `_jsonb->'f' @> '<value>'`, but its own indexes are btree expression indexes on `(_jsonb->'f')`, which PostgreSQL
 * cannot use for `@>`: every lookup, `_id`'s included, would scan the table. A GIN index on the same expression serves
 * it (and an array field's `{f: v}`, "contains v" in MongoDB and jsonb alike), so `_id` and each declared index's
 * leading field get one, without a pending list (`fastupdate = off`: with one, every lookup reads all entries written
 * since the last vacuum, 5–15 ms instead of 0.1–0.4 ms after a million inserts).
 */
const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * An error of FerretDB's PostgreSQL as the services answer it: one of reaching or keeping the server (no SQLSTATE, or
 * classes 08 connection, 53 resources, 55 not accepting connections, 57 shut down) is the store being away (503).
 */
export function asOutage(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const away = typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || /^(08|53|55|57)/.test(code);
  return away && err instanceof Error ? new ServiceUnavailableError(err) : err;
}

/** Runs `fn` on a short-lived client of the PostgreSQL database at `url`. */
export async function withPg<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The qualified table FerretDB keeps `collection` of database `dbName` in, or null (not created yet). */
export async function tableOf(client: ClientBase, dbName: string, collection: string): Promise<string | null> {
  const table = await tableNameOf(client, dbName, collection);
  return table ? `${quoteIdent(dbName)}.${quoteIdent(table)}` : null;
}

async function tableNameOf(client: ClientBase, dbName: string, collection: string): Promise<string | null> {
  if ((await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [dbName])).rowCount === 0) return null;
  const meta = await client.query<{ table: string }>(
    `SELECT _jsonb->>'table' AS table FROM ${quoteIdent(dbName)}._ferretdb_database_metadata WHERE _jsonb->>'_id' = $1`,
    [collection],
  );
  return meta.rows[0]?.table ?? null;
}

/** Creates GIN lookup indexes of the collections of `dbName`, each once (a failure is tried again next time). */
export function createLookupIndexer(url: string, dbName: string) {
  const done = new Map<string, Promise<void>>();
  const ensure = (collection: string, field: string) => {
    const key = `${collection}\n${field}`;
    if (!done.has(key)) {
      const p = withPg(url, (client) => createGin(client, dbName, collection, field));
      p.catch(() => done.delete(key));
      done.set(key, p);
    }
    return done.get(key)!;
  };
  return (collection: string, fields: string[]) =>
    Promise.all(fields.map((f) => ensure(collection, f))).then(() => undefined);
}

async function createGin(client: Client, dbName: string, collection: string, field: string): Promise<void> {
  const bare = await tableNameOf(client, dbName, collection);
  if (!bare) throw new Error(`${collection} is not created yet`);
  const table = `${quoteIdent(dbName)}.${quoteIdent(bare)}`;
  const name = `${bare.slice(0, 40)}_${createHash('sha256').update(field).digest('hex').slice(0, 10)}_gin`;
  const qualified = `${quoteIdent(dbName)}.${quoteIdent(name)}`;
  await client
    .query(
      `CREATE INDEX IF NOT EXISTS ${quoteIdent(name)} ON ${table} USING gin ((_jsonb -> ${quoteLiteral(field)})) WITH (fastupdate = off)`,
    )
    .catch((err: unknown) => {
      if ((err as { code?: string }).code !== '23505') throw err; // made at the same time by another process
    });
  // One made earlier with a pending list: switched off, and the list merged into it.
  const found = await client.query<{ options: string[] | null }>(
    'SELECT c.reloptions AS options FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2',
    [dbName, name],
  );
  if ((found.rows[0]?.options ?? ['fastupdate=off']).includes('fastupdate=off')) return;
  await client.query(`ALTER INDEX ${qualified} SET (fastupdate = off)`);
  await client.query('SELECT gin_clean_pending_list($1::regclass)', [qualified]);
}

/** Refreshes PostgreSQL's statistics of a database's tables (after a bulk load), so its planner weighs the indexes. */
export const analyzeTables = (url: string, dbName: string) =>
  withPg(url, async (client) => {
    const tables = await client.query<{ t: string }>('SELECT tablename AS t FROM pg_tables WHERE schemaname = $1', [
      dbName,
    ]);
    for (const { t } of tables.rows) await client.query(`ANALYZE ${quoteIdent(dbName)}.${quoteIdent(t)}`);
  });
