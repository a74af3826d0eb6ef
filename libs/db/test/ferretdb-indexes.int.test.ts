import { Client } from 'pg';

import {
  atomicStrategy,
  connectMongo,
  ensureLookupIndexes,
  ginIndexName,
  lookupFieldsOf,
  modelFor,
  mongoose,
  type Connection,
} from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

// The FerretDB index companion: GIN indexes on a model's equality fields, so PostgreSQL serves FerretDB's pushed-down
// `_jsonb->'f' @> value` filters. On MongoDB it must do nothing.
const PG_URL = process.env.FERRETDB_POSTGRESQL_URL ?? 'postgres://postgres@127.0.0.1:5432/ferretdb';

interface Item {
  owner: string;
  tags: string[];
  at: Date;
}
const schema = new mongoose.Schema<Item>({ owner: String, tags: [String], at: Date });
schema.index({ owner: 1, at: -1 });
schema.index({ tags: 1 });

let conn: Connection;
const Item = () => modelFor(conn, 'Item', schema, 'items');

beforeAll(async () => {
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('dbgin') });
  await Item().init();
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

test('the equality fields are _id and the leading field of each index', () => {
  expect(lookupFieldsOf(Item())).toEqual(['_id', 'owner', 'tags']);
  expect(ginIndexName('t'.repeat(80), 'owner').length).toBeLessThanOrEqual(63);
});

test('without the PostgreSQL URL it does nothing', async () => {
  await expect(ensureLookupIndexes(Item(), '')).resolves.toBeUndefined();
});

test('on FerretDB: one GIN index per field, created once, and an equality lookup uses it', async () => {
  if ((await atomicStrategy(conn)) !== 'claims') {
    // MongoDB: its own indexes serve equality; the companion resolves without touching anything.
    await expect(ensureLookupIndexes(Item(), PG_URL)).resolves.toBeUndefined();
    return;
  }
  await Item().insertMany(
    Array.from({ length: 3000 }, (_, i) => ({ owner: `o${i % 500}`, tags: [`t${i}`, 'all'], at: new Date() })),
  );
  await ensureLookupIndexes(Item(), PG_URL);
  await ensureLookupIndexes(Item(), PG_URL); // idempotent
  const pg = new Client({ connectionString: PG_URL });
  await pg.connect();
  try {
    const meta = await pg.query<{ table: string }>(
      `SELECT _jsonb->>'table' AS table FROM "${conn.name}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = 'items'`,
    );
    const table = meta.rows[0]!.table;
    const idx = await pg.query<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2',
      [conn.name, table],
    );
    const gin = idx.rows
      .filter((r) => r.indexdef.includes('USING gin'))
      .map((r) => r.indexname)
      .sort();
    expect(gin).toEqual(['_id', 'owner', 'tags'].map((f) => ginIndexName(table, f)).sort());
    // Without a pending list: a lookup reads the entries of its key, not everything inserted since the last vacuum.
    const opts = await pg.query<{ options: string[] | null }>(
      'SELECT c.reloptions AS options FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2)',
      [conn.name, gin],
    );
    expect(opts.rows.map((r) => r.options)).toEqual(gin.map(() => ['fastupdate=off']));
    await pg.query(`ANALYZE "${conn.name}"."${table}"`);
  } finally {
    await pg.end();
  }
  for (const filter of [{ owner: 'o7' }, { tags: 't42' }]) {
    const out = (await conn.db!.command({ explain: { find: 'items', filter } })) as {
      queryPlanner: { Plan: { 'Node Type': string } };
    };
    expect(out.queryPlanner.Plan['Node Type']).not.toBe('Seq Scan');
  }
  expect(await Item().countDocuments({ tags: 't42' })).toBe(1);
});
