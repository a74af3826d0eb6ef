import { createHash } from 'node:crypto';
import { Client } from 'pg';
import type { Connection } from 'mongoose';
import { atomicStrategy } from './server-kind';

/**
 * The FerretDB index companion (development and tests only).
 *
 * FerretDB 1.24 on PostgreSQL pushes a top-level equality filter down as `_jsonb->'f' @> '<value>'`, but the
 * indexes it creates for `createIndexes` are btree expression indexes on `(_jsonb->'f')`, which PostgreSQL cannot
 * use for `@>`: every lookup, `_id` included, is a sequential scan of the collection. A GIN expression index on the
 * same expression serves that containment (and an array field's `{f: v}`, which is "contains v" in both MongoDB and
 * jsonb). So, when the process is given the PostgreSQL database FerretDB stores its data in
 * (`FERRETDB_POSTGRESQL_URL`), each model's equality fields get such an index on the collection's table, the way
 * MongoDB's own indexes serve them in production. Without that variable, or on MongoDB, this does nothing.
 *
 * The variable is read here rather than in each service's config: it describes the development database server,
 * not the service, and production (MongoDB) never sets it.
 */
export const FERRETDB_POSTGRESQL_URL_ENV = 'FERRETDB_POSTGRESQL_URL';

/** What the companion needs of a mongoose model. */
export interface LookupModel {
  db: Connection;
  collection: { name: string };
  schema: { indexes(): [Record<string, unknown>, unknown][] };
}

const done = new Map<string, Promise<void>>();

/** `_id` and the leading field of every index the model's schema declares: the fields its queries test for equality. */
export function lookupFieldsOf(model: LookupModel): string[] {
  const fields = new Set<string>(['_id']);
  for (const [keys] of model.schema.indexes()) {
    const first = Object.keys(keys)[0];
    if (first && !first.includes('.') && !first.startsWith('$')) fields.add(first);
  }
  return [...fields];
}

/** A deterministic PostgreSQL index name (at most 63 bytes) for a GIN index of `field` on `table`. */
export function ginIndexName(table: string, field: string): string {
  return `${table.slice(0, 40)}_${createHash('sha256').update(field).digest('hex').slice(0, 10)}_gin`;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Creates the GIN indexes of `model`'s equality fields on its FerretDB table (idempotent; once per collection and
 * process). Resolves without doing anything on MongoDB, without the variable, or when the collection is not stored
 * in that PostgreSQL database (e.g. a FerretDB on SQLite that a test started).
 */
export function ensureLookupIndexes(model: LookupModel, url = process.env[FERRETDB_POSTGRESQL_URL_ENV]): Promise<void> {
  if (!url) return Promise.resolve();
  const dbName = model.db.name;
  const key = `${url}\n${dbName}\n${model.collection.name}`;
  let p = done.get(key);
  if (!p) {
    p = createGinIndexes(model, url, dbName);
    p.catch(() => done.delete(key));
    done.set(key, p);
  }
  return p;
}

async function createGinIndexes(model: LookupModel, url: string, dbName: string): Promise<void> {
  if ((await atomicStrategy(model.db)) !== 'claims') return; // MongoDB: its own indexes serve equality
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const schema = quoteIdent(dbName);
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [dbName]);
    if (exists.rowCount === 0) return;
    const meta = await client.query<{ table: string }>(
      `SELECT _jsonb->>'table' AS table FROM ${schema}._ferretdb_database_metadata WHERE _jsonb->>'_id' = $1`,
      [model.collection.name],
    );
    const table = meta.rows[0]?.table;
    if (!table) return;
    for (const field of lookupFieldsOf(model)) {
      const sql = `CREATE INDEX IF NOT EXISTS ${quoteIdent(ginIndexName(table, field))} ON ${schema}.${quoteIdent(table)} USING gin ((_jsonb -> ${quoteLiteral(field)}))`;
      await client.query(sql).catch((err: unknown) => {
        // Two processes creating the same index at once: the loser sees the catalog's unique violation.
        if ((err as { code?: string }).code !== '23505') throw err;
      });
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Refreshes PostgreSQL's statistics of the connection's FerretDB tables, so that its planner weighs the GIN indexes
 * against what the tables now hold (after seeding a benchmark or a test; autovacuum does it in its own time).
 * Does nothing where `ensureLookupIndexes` does nothing.
 */
export async function analyzeLookupTables(conn: Connection, url = process.env[FERRETDB_POSTGRESQL_URL_ENV]): Promise<void> {
  if (!url || (await atomicStrategy(conn)) !== 'claims') return;
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const tables = await client.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = $1', [conn.name]);
    for (const { tablename } of tables.rows) await client.query(`ANALYZE ${quoteIdent(conn.name)}.${quoteIdent(tablename)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
