import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import { Client } from 'pg';

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
 * MongoDB's own indexes serve them in production. Without that variable, or on MongoDB, this does nothing. The
 * indexes keep no pending list (`fastupdate = off`, see `withoutPendingList`), so that a lookup reads only the
 * entries of its key however many documents the collection took in.
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
      const name = ginIndexName(table, field);
      const sql = `CREATE INDEX IF NOT EXISTS ${quoteIdent(name)} ON ${schema}.${quoteIdent(table)} USING gin ((_jsonb -> ${quoteLiteral(field)})) WITH (fastupdate = off)`;
      await client.query(sql).catch((err: unknown) => {
        // Two processes creating the same index at once: the loser sees the catalog's unique violation.
        if ((err as { code?: string }).code !== '23505') throw err;
      });
      await withoutPendingList(client, dbName, name);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Turns off the pending list of an index made before it was created without one, and merges what that list holds
 * into the index. With `fastupdate` (PostgreSQL's default for GIN) new entries are appended to a pending list that
 * every lookup of the index reads in full, until a vacuum or a full list (4 MB, over 100,000 entries of a short key)
 * merges it: on a growing collection each equality lookup then reads every entry recently written, whatever it
 * matches, and costs more the more the collection took in (the executions collection's lookups, after a million
 * inserts: 5–15 ms each instead of 0.1–0.4 ms). Without it an insert adds its one entry per index to the tree at
 * once, and a lookup reads only the entries of its key.
 */
async function withoutPendingList(client: Client, dbName: string, index: string): Promise<void> {
  const found = await client.query<{ options: string[] | null }>(
    'SELECT c.reloptions AS options FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2',
    [dbName, index],
  );
  const row = found.rows[0];
  if (!row || (row.options ?? []).includes('fastupdate=off')) return;
  const qualified = `${quoteIdent(dbName)}.${quoteIdent(index)}`;
  await client.query(`ALTER INDEX ${qualified} SET (fastupdate = off)`);
  await client.query('SELECT gin_clean_pending_list($1::regclass)', [qualified]);
}

/**
 * Refreshes PostgreSQL's statistics of the connection's FerretDB tables, so that its planner weighs the GIN indexes
 * against what the tables now hold (after seeding a benchmark or a test; autovacuum does it in its own time).
 * Does nothing where `ensureLookupIndexes` does nothing.
 */
export async function analyzeLookupTables(
  conn: Connection,
  url = process.env[FERRETDB_POSTGRESQL_URL_ENV],
): Promise<void> {
  if (!url || (await atomicStrategy(conn)) !== 'claims') return;
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const tables = await client.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = $1', [
      conn.name,
    ]);
    for (const { tablename } of tables.rows)
      await client.query(`ANALYZE ${quoteIdent(conn.name)}.${quoteIdent(tablename)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What a query read on the server: rows (index entries and documents examined) and buffers touched (PostgreSQL). */
export interface ReadCost {
  rows: number;
  blocks: number;
}

interface PgPlanNode {
  'Node Type'?: string;
  Schema?: string;
  'Relation Name'?: string;
  'Recheck Cond'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PgPlanNode[];
}

/** Rows a plan's scans read: what each returned, and what each read and dropped. */
function rowsRead(p: PgPlanNode): number {
  const own = (p['Node Type'] ?? '').includes('Scan')
    ? ((p['Actual Rows'] ?? 0) + (p['Rows Removed by Filter'] ?? 0) + (p['Rows Removed by Index Recheck'] ?? 0)) *
      (p['Actual Loops'] ?? 1)
    : 0;
  return own + (p.Plans ?? []).reduce((s, c) => s + rowsRead(c), 0);
}

/**
 * What `find(filter)` on `collection` reads, for tests that hold a query's cost to a bound. On MongoDB: the keys and
 * documents its winning plan examined (`blocks` 0). On FerretDB: the statement FerretDB plans for it (its explain
 * names the table and the conditions it pushes down) run under PostgreSQL's EXPLAIN ANALYZE in the database at `url`:
 * rows its scans read, and shared buffers it touched, which also counts index entries read past (a GIN pending list).
 */
export async function readCostOf(
  conn: Connection,
  collection: string,
  filter: Record<string, unknown>,
  url = process.env[FERRETDB_POSTGRESQL_URL_ENV],
): Promise<ReadCost> {
  if ((await atomicStrategy(conn)) !== 'claims') {
    const out = (await conn.db!.command({ explain: { find: collection, filter }, verbosity: 'executionStats' })) as {
      executionStats: { totalKeysExamined: number; totalDocsExamined: number };
    };
    return { rows: out.executionStats.totalKeysExamined + out.executionStats.totalDocsExamined, blocks: 0 };
  }
  if (!url)
    throw new Error(
      `${FERRETDB_POSTGRESQL_URL_ENV} is not set: the read cost of a FerretDB query is measured in its PostgreSQL`,
    );
  const out = (await conn.db!.command({ explain: { find: collection, filter }, verbosity: 'queryPlanner' })) as {
    queryPlanner: { Plan: PgPlanNode };
  };
  let scan = out.queryPlanner.Plan;
  while (!scan['Relation Name'] && scan.Plans?.length === 1) scan = scan.Plans[0]!;
  if (!scan['Relation Name'] || !scan.Schema)
    throw new Error(`no table in FerretDB's plan of ${collection} ${JSON.stringify(filter)}`);
  // A bitmap heap scan rechecks every condition its index scans used; an index scan names its own.
  const conds = [
    scan['Recheck Cond'] ?? (scan['Node Type'] === 'Bitmap Heap Scan' ? undefined : scan['Index Cond']),
    scan.Filter,
  ].filter((c): c is string => !!c);
  const sql = `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT _jsonb FROM ${quoteIdent(scan.Schema)}.${quoteIdent(scan['Relation Name'])}${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''}`;
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const res = await client.query<{ 'QUERY PLAN': [{ Plan: PgPlanNode }] }>(sql);
    const plan = res.rows[0]!['QUERY PLAN'][0].Plan;
    return { rows: rowsRead(plan), blocks: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0) };
  } finally {
    await client.end().catch(() => undefined);
  }
}
