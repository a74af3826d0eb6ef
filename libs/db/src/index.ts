import mongoose, { type Connection, type Model } from 'mongoose';

import type { Logger } from '@platform/logger';

import { atomicUpdateOne, prepareAtomicUpdates } from './atomic';
import { ensureLookupIndexes } from './ferretdb-indexes';
import { MAJORITY } from './retry-write';

export { mongoose };
export {
  AtomicConflictError,
  atomicUpdateEach,
  atomicUpdateOne,
  atomicStrategy,
  prepareAtomicUpdates,
  releaseLease,
  updateUnderLease,
  type AtomicEachOptions,
  type AtomicItem,
  type AtomicStrategy,
  type AtomicUpdateOptions,
} from './atomic';

export {
  analyzeLookupTables,
  ensureLookupIndexes,
  ginIndexName,
  lookupFieldsOf,
  readCostOf,
  FERRETDB_POSTGRESQL_URL_ENV,
  type LookupModel,
  type ReadCost,
} from './ferretdb-indexes';
export type { Connection, Model };
export type { UpdateQuery } from 'mongoose';
export { isDuplicateKeyError } from './duplicate-key';
export { createExpiry, type Expiry } from './expiry';
export {
  createGroupCommit,
  insertEach,
  type GroupCommit,
  type GroupCommitOptions,
  type InsertEachOptions,
} from './group-commit';
export { isRetryableWriteError, MAJORITY, retryWriteOnce } from './retry-write';
export { findPage, listEqualities, type ListFilter, type Page } from './listing';

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

/**
 * Opens a mongoose connection with command buffering off, so that a call made while the database is unreachable
 * fails within `serverSelectionTimeoutMS` instead of queueing: the HTTP layer turns that into a 503. Reads go to
 * the primary and writes wait for a majority unless configured otherwise (README "Replica sets").
 * Models are compiled per connection by the caller (no global mongoose models).
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
    monitorCommands: opts.monitorCommands ?? false,
    retryWrites: opts.retryWrites ?? true,
    readPreference: readPreferenceOf(opts.readPreference),
    w,
    ...(w === 'majority' ? { wtimeoutMS: MAJORITY.wtimeoutMS } : {}),
  });
  conn.on('disconnected', () => opts.logger?.warn('mongodb disconnected', { db: opts.dbName }));
  conn.on('reconnected', () => opts.logger?.info('mongodb reconnected', { db: opts.dbName }));
  await conn.asPromise();
  return conn;
}

/**
 * Waits for every model's indexes to exist (and, on FerretDB in development, the GIN indexes that let PostgreSQL
 * serve their equality lookups: see ferretdb-indexes.ts); call once at start (and in tests) before serving.
 */
export async function syncIndexes(conn: Connection): Promise<void> {
  await prepareAtomicUpdates(conn);
  await Promise.all(
    Object.values(conn.models).map(async (m) => {
      await m.init();
      // Development only and a matter of speed: a PostgreSQL that cannot be reached must not stop the service.
      await ensureLookupIndexes(m).catch(() => undefined);
    }),
  );
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

/**
 * The connection's model `name`, compiled on first use (models live per connection, never globally). Once mongoose
 * has built its indexes, the FerretDB companion adds the GIN indexes of its equality fields (development only).
 */
export function modelFor<T>(conn: Connection, name: string, schema: mongoose.Schema<T>, collection: string): Model<T> {
  const existing = conn.models[name] as Model<T> | undefined;
  if (existing) return existing;
  const model = conn.model<T>(name, schema, collection);
  model.on('index', () => void ensureLookupIndexes(model).catch(() => undefined));
  return model;
}

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** True for a 24-character lowercase hex id, the API's id format for stored objects. */
export function isObjectIdHex(id: unknown): id is string {
  return typeof id === 'string' && OBJECT_ID.test(id);
}

/** A new 24-char lowercase hex id. */
export function newObjectId(): string {
  return new mongoose.Types.ObjectId().toHexString();
}

interface CounterDoc {
  _id: string;
  seq: number;
}

const counterSchema = new mongoose.Schema<CounterDoc>(
  { _id: String, seq: { type: Number, required: true } },
  { versionKey: false },
);

/**
 * A monotonically increasing integer sequence stored in the `counters` collection. Uses `atomicUpdateOne`
 * because FerretDB's `$inc` is not atomic under concurrency. Used for integer ids such as agents'.
 */
export function createSequence(conn: Connection, name: string, start = 1): () => Promise<number> {
  const Counter = modelFor(conn, 'Counter', counterSchema, 'counters');
  return async () => {
    const doc = await atomicUpdateOne(Counter, { _id: name }, { $inc: { seq: 1 } }, { upsert: true });
    if (!doc) throw new Error(`sequence ${name} did not advance`);
    return doc.seq + start - 1;
  };
}

/** ISO 8601 UTC with `Z`, or null. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}

/**
 * Free-form client JSON (webhook payloads, JSON Schemas, provider parameters) is stored as JSON text: a document
 * store refuses some keys (`$`-prefixed, dotted) and FerretDB nested arrays, yet a client's JSON must come back
 * exactly as sent. `undefined` and null are stored as null.
 */
export function toJsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** Reads what `toJsonText` wrote; `legacy` is the value of a document written before the field was JSON text. */
export function fromJsonText(text: unknown, legacy: unknown = null): unknown {
  return typeof text === 'string' ? (JSON.parse(text) as unknown) : (legacy ?? null);
}

/** A stored object's owner: every query of an owner's objects is scoped to both. */
export interface Owner {
  user_id: string;
  org_id: string;
}

/** The equality filter that scopes a query to `owner`. */
export const ownerFilter = (owner: Owner): { user_id: string; org_id: string } => ({
  user_id: owner.user_id,
  org_id: owner.org_id,
});
/** The owner as one string (a cache's scope): equal exactly when `ownerFilter` is. */
export const ownerKey = (owner: Owner): string => `${owner.user_id}\u0000${owner.org_id}`;
