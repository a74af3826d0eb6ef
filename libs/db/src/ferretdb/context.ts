import { ConnectionStates, type Connection } from 'mongoose';
import { Pool } from 'pg';

import type { AdapterContext } from './adapter';
import { createExpiry } from './expiry';
import { analyzeTables, createLookupIndexer, tableOf } from './indexes';
import { createDocLocks, type DocLocks } from './locks';
import { addFieldTypes, createReads, type FieldTypes, type Reads } from './reads';

/** `postgresUrl`: FerretDB's PostgreSQL database (default FERRETDB_POSTGRESQL_URL: the dev server's, not a service's). */
export type FerretDbOptions = { postgresUrl?: string };

export type FerretDbContext = AdapterContext & Record<'sweepExpired' | 'analyze' | 'close', () => Promise<void>>;

export async function isFerretDb(conn: Connection): Promise<boolean> {
  return 'ferretdbVersion' in (await conn.db!.admin().command({ buildInfo: 1 }));
}

/** A process's PostgreSQL sessions per URL, shared by its connections: one for the locks, a small pool for reads. */
const shared = new Map<string, { locks: DocLocks; pool: Pool; users: number }>();

function pgOf(url: string) {
  let s = shared.get(url);
  if (!s) {
    // `work_mem`: room to count and sort a list's matches without a lossy bitmap (the default 4 MB rechecks every row).
    const [options, max, idleTimeoutMillis, connectionTimeoutMillis] = ['-c work_mem=32MB', 4, 5_000, 3_000];
    const pool = new Pool({ connectionString: url, options, max, idleTimeoutMillis, connectionTimeoutMillis });
    pool.on('error', () => undefined); // an idle client lost: the pool makes another when asked
    shared.set(url, (s = { locks: createDocLocks(url), pool, users: 0 }));
  }
  const mine = s;
  mine.users += 1;
  const release = async () => {
    if (--mine.users > 0) return;
    shared.delete(url);
    await Promise.all([mine.locks.close(), mine.pool.end().catch(() => undefined)]);
  };
  return { locks: mine.locks, pool: mine.pool, release };
}

/** The adapter's state for one connection to FerretDB. */
export function createFerretDbContext(conn: Connection, opts: FerretDbOptions = {}): FerretDbContext {
  const url = opts.postgresUrl ?? process.env.FERRETDB_POSTGRESQL_URL;
  if (!url)
    throw new Error(
      'the database server is FerretDB: set FERRETDB_POSTGRESQL_URL to the PostgreSQL database it stores in',
    );
  const dbName = conn.name;
  const pg = pgOf(url);
  const expiry = createExpiry(pg.pool, dbName, 60_000); // as often as MongoDB's TTL monitor
  const lookup = createLookupIndexer(pg.pool, dbName);
  const collections = new Map<string, { types: FieldTypes; reads: Reads }>();
  const up = () => conn.readyState === ConnectionStates.connected;
  const collectionOf = (name: string) => {
    if (!collections.has(name)) {
      const types: FieldTypes = new Map();
      let table: string | null = null; // known once it exists (asked again until then)
      const resolve = async () => (table ??= await tableOf(pg.pool, dbName, name));
      collections.set(name, {
        types,
        reads: createReads({ pool: pg.pool, db: dbName, collection: name, up, table: resolve }, types),
      });
    }
    return collections.get(name)!;
  };
  return {
    dbName,
    locks: pg.locks,
    reads: (collection) => collectionOf(collection).reads,
    describe: (collection, schema) => addFieldTypes(collectionOf(collection).types, schema),
    onIndex(collection, keys, { expireAfterSeconds, ...rest }) {
      if (typeof expireAfterSeconds !== 'number') return rest;
      const [field, ...others] = Object.keys(keys);
      if (!field || others.length || field.includes('.'))
        throw new Error(`TTL index of ${collection}: one top-level field`);
      const name = typeof rest.name === 'string' ? rest.name : `${field}_${String(keys[field])}`;
      expiry.register(collection, name, field, expireAfterSeconds);
      return rest;
    },
    // The leading field of an index is what its queries test for equality; `_id` is every collection's.
    afterIndex: (collection, keys) => lookup(collection, ['_id', Object.keys(keys)[0]!]).catch(() => undefined),
    onDropIndex: (collection, name) => expiry.unregister(collection, name),
    sweepExpired: () => expiry.sweep(),
    analyze: () => analyzeTables(pg.pool, dbName),
    async close() {
      expiry.stop();
      await pg.release();
    },
  };
}
