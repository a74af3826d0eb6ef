import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { connectMongo, type Connection } from '@platform/db';
import { CHILDREN_DIR_ENV, LOCAL_POSTGRES, privatePostgres, privateStore, type PrivateStore } from '@platform/testing';

const psql = (url: string, sql: string) =>
  execFileSync('psql', [url, '-qAtc', sql], { stdio: 'pipe' }).toString().trim();
const psqlSelect = (url: string) => psql(url, 'SELECT 1');
const databaseExists = (name: string) =>
  psql(`${LOCAL_POSTGRES}/postgres`, `SELECT 1 FROM pg_database WHERE datname = '${name}'`) === '1';

/** The command lines of the processes this test file recorded (children.ts). */
const recordedCommands = (): string[][] =>
  readdirSync(process.env[CHILDREN_DIR_ENV]!).map((pid) => {
    try {
      return readFileSync(join('/proc', pid, 'cmdline'), 'utf8').split('\0');
    } catch {
      return [];
    }
  });

/** A connection to the store, its adapter taking its locks in the store's PostgreSQL. */
const connectTo = (store: PrivateStore): Promise<Connection> =>
  connectMongo({
    uri: store.uri,
    dbName: 'probe',
    serverSelectionTimeoutMS: 2000,
    ferretdb: { postgresUrl: store.postgresUrl },
  });

/** The count of `things` once the store answers again (0 if it never does within 10 s). */
async function countWhenBack(conn: Connection): Promise<number> {
  for (let i = 0; i < 50; i++) {
    try {
      return await conn.collection('things').countDocuments({});
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return 0;
}

it('by default stores in a database of its own on the local PostgreSQL, survives a crash, and drops it on dispose', async () => {
  const store = await privateStore();
  const name = store.postgresUrl.slice(LOCAL_POSTGRES.length + 1);
  try {
    expect(store.postgresUrl).toMatch(new RegExp(`^${LOCAL_POSTGRES}/store_[a-z0-9]+$`));
    expect(databaseExists(name)).toBe(true);
    // The recorded pid is the server's own (the script execs it), so a kill by pid stops the server.
    const server = recordedCommands().find((args) => args.includes(`--listen-addr=127.0.0.1:${store.port}`));
    expect(server?.[0]).toMatch(/ferretdb$/);

    const conn = await connectTo(store);
    try {
      await conn.collection('things').insertOne({ n: 1 });
      await store.stop();
      await expect(conn.collection('things').insertOne({ n: 2 })).rejects.toThrow();
      // The whole store is away, its PostgreSQL database too (the adapter of libs/db reads there).
      expect(() => psqlSelect(store.postgresUrl)).toThrow(/not currently accepting connections/);
      await store.start();
      expect(psqlSelect(store.postgresUrl)).toBe('1');
      expect(await countWhenBack(conn)).toBe(1);
    } finally {
      await conn.close();
    }
  } finally {
    await store.dispose();
  }
  expect(databaseExists(name)).toBe(false);
}, 60_000);

it('on a private PostgreSQL keeps its data across a crash of PostgreSQL, and fails while it is down', async () => {
  const pg = await privatePostgres();
  const store = await privateStore({ postgresUrl: pg.url });
  const conn = await connectTo(store);
  try {
    expect(store.postgresUrl).toBe(pg.url);
    await conn.collection('things').insertOne({ n: 1 });
    await pg.stop();
    await expect(conn.collection('things').insertOne({ n: 2 })).rejects.toThrow();
    await pg.start();
    expect(await countWhenBack(conn)).toBe(1);
  } finally {
    await conn.close();
    await store.dispose();
    await pg.dispose();
  }
}, 60_000);
