import mongoose, { type Connection, type InferSchemaType, type Model } from 'mongoose';

import type { Logger } from '@platform/logger';

import { adaptCollection } from './ferretdb/adapter';
import { createFerretDbContext, isFerretDb, type FerretDbContext, type FerretDbOptions } from './ferretdb/context';
import { logModel, QUERY_LOG_ENV, startQueryLog } from './query-log';
import { MAJORITY } from './retry-write';

export { mongoose };

export interface MongoOptions {
  uri: string;
  dbName: string;
  /** How long a call waits for a reachable server before failing (→ 503). At most 5 s. */
  serverSelectionTimeoutMS?: number;
  logger?: Logger;
  appName?: string;
  /** Emit the driver's command events (`commandStarted`, …) on `conn.getClient()`: tests count the work with it. */
  monitorCommands?: boolean;
  /** The driver's retryable writes (default true; used only on a replica set: see README "Replica sets"). */
  retryWrites?: boolean;
  /** Where reads go: a ReadPreferenceMode (default `primary`). */
  readPreference?: string;
  /** Default acknowledgement of writes: `majority` (default) or a member count, as a number or digits. */
  writeConcern?: number | string;
  /**
   * `pass-through`: the driver's calls exactly as MongoDB gets them, whatever the server (the store-contract suite
   * runs them on the development server too). Default `auto`: on a server that needs it, the adapter underneath.
   */
  adapter?: 'auto' | 'pass-through';
  /** Settings of the development server's adapter (README "FerretDB and MongoDB"); MongoDB ignores them. */
  ferretdb?: FerretDbOptions;
}

const READ_PREFERENCES = ['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'] as const;
export type ReadPreferenceMode = (typeof READ_PREFERENCES)[number];

/** A configured read preference, checked (default `primary`). */
export function readPreferenceOf(value: string | undefined): ReadPreferenceMode {
  if (value === undefined) return 'primary';
  const mode = READ_PREFERENCES.find((m) => m === value);
  if (!mode) throw new Error(`read preference must be one of ${READ_PREFERENCES.join(', ')}, not ${value}`);
  return mode;
}

/** The write concern `w` of a configured value: `majority`, else a member count (digits). */
export function writeConcernOf(value: number | string | undefined): 'majority' | number {
  if (value === undefined || value === 'majority') return 'majority';
  const n = typeof value === 'number' ? value : /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0) throw new Error(`write concern must be majority or a member count, not ${value}`);
  return n;
}

/** The adapter of each connection that has one (the development server's). */
const adapters = new WeakMap<Connection, FerretDbContext>();

/**
 * Opens a mongoose connection with command buffering off, so that a call made while the database is unreachable
 * fails within `serverSelectionTimeoutMS` instead of queueing: the HTTP layer turns that into a 503. Reads go to
 * the primary and writes wait for a majority unless configured otherwise (README "Replica sets"). On the development
 * server the models' collections get the adapter that makes it behave as MongoDB does (README "FerretDB and MongoDB").
 * Models are compiled per connection by the caller (`modelFor`; no global mongoose models).
 */
export async function connectMongo(opts: MongoOptions): Promise<Connection> {
  const timeout = Math.min(opts.serverSelectionTimeoutMS ?? 3000, 5000);
  const w = writeConcernOf(opts.writeConcern);
  const conn = mongoose.createConnection(opts.uri, {
    dbName: opts.dbName,
    bufferCommands: false,
    autoIndex: true,
    autoCreate: true,
    serverSelectionTimeoutMS: timeout,
    connectTimeoutMS: timeout,
    socketTimeoutMS: 30000,
    heartbeatFrequencyMS: 2000,
    maxPoolSize: 20,
    appName: opts.appName,
    monitorCommands: opts.monitorCommands ?? Boolean(process.env[QUERY_LOG_ENV]),
    retryWrites: opts.retryWrites ?? true,
    readPreference: readPreferenceOf(opts.readPreference),
    w,
    ...(w === 'majority' ? { wtimeoutMS: MAJORITY.wtimeoutMS } : {}),
  });
  conn.on('disconnected', () => opts.logger?.warn('mongodb disconnected', { db: opts.dbName }));
  conn.on('reconnected', () => opts.logger?.info('mongodb reconnected', { db: opts.dbName }));
  await conn.asPromise();
  startQueryLog(conn);
  if (opts.adapter !== 'pass-through' && (await isFerretDb(conn))) {
    const ctx = createFerretDbContext(conn, opts.ferretdb);
    adapters.set(conn, ctx);
    conn.once('close', () => void ctx.close());
  }
  return conn;
}

/** A stored document as its schema types it (what `lean()` reads), with its `_id` (an ObjectId unless said). */
export type StoredDoc<S extends mongoose.Schema, Id = mongoose.Types.ObjectId> = Omit<InferSchemaType<S>, '_id'> & {
  _id: Id;
};

/**
 * The connection's model `name`, compiled on first use (models live per connection, never globally); its document
 * type is the schema's (`InferSchemaType`).
 */
export function modelFor<S extends mongoose.Schema>(
  conn: Connection,
  name: string,
  schema: S,
  collection: string,
): Model<InferSchemaType<S>> {
  type T = InferSchemaType<S>;
  const existing = conn.models[name] as Model<T> | undefined;
  if (existing) return existing;
  const model = conn.model(name, schema, collection) as unknown as Model<T>;
  const ctx = adapters.get(conn);
  if (ctx) adaptCollection(model.collection, schema, ctx);
  logModel(model as mongoose.Model<unknown>);
  return model;
}

/** Creates every model's collection and indexes (TTL ones included); call once at start (and in tests) before serving. */
export async function syncIndexes(conn: Connection): Promise<void> {
  const ctx = adapters.get(conn);
  await Promise.all(
    Object.values(conn.models).map(async (m) => {
      await m.init();
      await ctx?.afterIndex(m.collection.name, { _id: 1 });
    }),
  );
}

/**
 * Removes documents whose TTL index says they expired, now: on MongoDB its TTL monitor does that once a minute and
 * this does nothing. For tests and benchmarks.
 */
export async function expireNow(conn: Connection): Promise<void> {
  await adapters.get(conn)?.sweepExpired();
}

/** Refreshes the server's statistics after a bulk load (benchmarks): the development server's planner needs it. */
export async function refreshStatistics(conn: Connection): Promise<void> {
  await adapters.get(conn)?.analyze();
}

/** The lookup indexes of a collection made outside a model (benchmarks' raw collections); nothing on MongoDB. */
export async function prepareLookups(conn: Connection, collection: string, fields: string[]): Promise<void> {
  const ctx = adapters.get(conn);
  if (ctx) await Promise.all(fields.map((f) => ctx.afterIndex(collection, { [f]: 1 })));
}

/** Pings the server; resolves false on any failure within `timeoutMs`. For readiness checks. */
export async function pingMongo(conn: Connection, timeoutMs = 2000): Promise<boolean> {
  const db = conn.db;
  if (!db) return false;
  const ping = db
    .admin()
    .command({ ping: 1 })
    .then(
      () => true,
      () => false,
    );
  const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
  return Promise.race([ping, timer]);
}
