import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type mongoose from 'mongoose';
import type { Connection } from 'mongoose';

/**
 * The query log of the index-discipline test (test/index-discipline): with `DB_QUERY_LOG=<folder>` set (by
 * scripts/test.sh for the test run, never in production), every process records, through the driver's command
 * monitoring, the shape of each filter and sort it sends (fields and operators, no values) with the code that sent
 * it, and the indexes its models declare, one JSON line each, once per distinct line, into `<folder>/<pid>.jsonl`.
 */
export const QUERY_LOG_ENV = 'DB_QUERY_LOG';

const caller = new AsyncLocalStorage<string>();
const COLLECTION_METHODS = [
  'find',
  'findOne',
  'countDocuments',
  'aggregate',
  'distinct',
  'findOneAndUpdate',
  'findOneAndReplace',
  'findOneAndDelete',
  'updateOne',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'bulkWrite',
];
const WRAPPED = Symbol.for('platform.db.query-log');

/** The first frame of the current stack outside libs/db and node_modules: the code that sent a query. */
function sender(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  for (const line of stack.split('\n').slice(1)) {
    const m = /(?:\(|^at (?:async )?)(\/[^()]*?):(\d+):\d+\)?$/.exec(line.trim());
    const file = m?.[1];
    if (!file || file.includes('node_modules') || /libs\/db\/(src|dist)\//.test(file)) continue;
    return `${file.replace(`${process.cwd()}/`, '')}:${m[2]}`;
  }
  return 'unknown';
}

function writer(dir: string) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}.jsonl`);
  const seen = new Set<string>();
  return (entry: Record<string, unknown>) => {
    const line = JSON.stringify(entry);
    if (seen.has(line)) return;
    seen.add(line);
    appendFileSync(file, `${line}\n`);
  };
}
const writers = new Map<string, ReturnType<typeof writer>>();
const writerFor = (dir: string) => writers.get(dir) ?? writers.set(dir, writer(dir)).get(dir)!;

/** A filter's shape: each field's operators (`=` for an equality), branches of `$or`/`$and` kept as such. */
export function shapeOf(filter: unknown): unknown {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter as Record<string, unknown>)) {
    if ((k === '$or' || k === '$and' || k === '$nor') && Array.isArray(v)) out[k] = v.map(shapeOf);
    else if (k.startsWith('$')) out[k] = '?';
    else {
      const ops =
        v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).every((x) => x.startsWith('$'))
          ? Object.keys(v)
          : [];
      out[k] = ops.length ? ops.sort() : '=';
    }
  }
  return out;
}

/** A sort as `[field, direction]` pairs: the driver sends it as a Map, a caller may give an object. */
const sortEntries = (sort: unknown): [string, unknown][] =>
  sort instanceof Map ? [...(sort as Map<string, unknown>).entries()] : Object.entries(sort as Record<string, unknown>);

/** The `sort` field of a log entry: present only when the query sorts by something. */
function sortField(sort: unknown): { sort?: [string, unknown][] } {
  const entries = sort ? sortEntries(sort) : [];
  return entries.length ? { sort: entries } : {};
}

/** What a command asks of its collection's indexes: its filters, each with the sort that goes with it. */
function queriesOf(name: string, cmd: Record<string, unknown>): { filter: unknown; sort?: unknown }[] {
  switch (name) {
    case 'find':
      return [{ filter: cmd.filter, sort: cmd.sort }];
    case 'findAndModify':
      return [{ filter: cmd.query, sort: cmd.sort }];
    case 'count':
    case 'distinct':
      return [{ filter: cmd.query }];
    case 'update':
      return ((cmd.updates ?? []) as { q: unknown }[]).map((u) => ({ filter: u.q }));
    case 'delete':
      return ((cmd.deletes ?? []) as { q: unknown }[]).map((d) => ({ filter: d.q }));
    case 'aggregate': {
      const [first, second] = (cmd.pipeline ?? []) as Record<string, unknown>[];
      if (!first || !('$match' in first)) return [{ filter: {} }];
      return [{ filter: first.$match, sort: second && '$sort' in second ? second.$sort : undefined }];
    }
    default:
      return [];
  }
}

/** A query the development server's adapter served from its PostgreSQL: on MongoDB, a command to the server. */
export interface ServedQuery {
  db: string;
  collection: string;
  command: string;
}
const servedWatchers = new Set<(q: ServedQuery) => void>();

/**
 * Calls `watch` for each query served without a command to the server, in this process, until the returned function
 * is called: with the driver's command monitoring, it counts the commands MongoDB would get (the work tests).
 */
export function watchServedQueries(watch: (q: ServedQuery) => void): () => void {
  servedWatchers.add(watch);
  return () => servedWatchers.delete(watch);
}

/**
 * A query the adapter answered itself: its watchers (`watchServedQueries`) are told, and the query log records it as
 * the command monitoring records the others.
 */
export function queryServed(q: ServedQuery & { filter: unknown; sort?: unknown }): void {
  for (const watch of servedWatchers) watch(q);
  const dir = process.env[QUERY_LOG_ENV];
  if (!dir) return;
  const entry = { kind: 'query', ...q, filter: shapeOf(q.filter), ...sortField(q.sort) };
  writerFor(dir)({ ...entry, caller: caller.getStore() ?? 'unknown' });
}

/** Starts the log on a connection when the variable is set (before any model is compiled on it). */
export function startQueryLog(conn: Connection, dir = process.env[QUERY_LOG_ENV]): boolean {
  if (!dir) return false;
  const write = writerFor(dir);
  conn.getClient().on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => {
    const cmd = e.command as Record<string, unknown>;
    const collection = cmd[e.commandName];
    if (typeof collection !== 'string' || collection.startsWith('system.')) return;
    for (const q of queriesOf(e.commandName, cmd))
      write({
        kind: 'query',
        db: e.databaseName,
        collection,
        command: e.commandName,
        filter: shapeOf(q.filter),
        ...sortField(q.sort),
        caller: caller.getStore() ?? 'unknown',
      });
  });
  return true;
}

/** Records a model's declared indexes, and the caller of each of its collection's calls (for the query log). */
export function logModel(model: mongoose.Model<unknown>, dir = process.env[QUERY_LOG_ENV]): void {
  if (!dir) return;
  const write = writerFor(dir);
  const db = model.db.name;
  const collection = model.collection.name;
  write({ kind: 'index', db, collection, keys: [['_id', 1]] });
  for (const [keys] of model.schema.indexes()) write({ kind: 'index', db, collection, keys: Object.entries(keys) });
  const coll = model.collection as unknown as Record<string | symbol, unknown>;
  if (coll[WRAPPED]) return;
  coll[WRAPPED] = true;
  for (const method of [...COLLECTION_METHODS, 'createIndex']) {
    const current = coll[method] as (...args: unknown[]) => unknown;
    coll[method] = function (this: unknown, ...args: unknown[]) {
      if (method === 'createIndex')
        write({ kind: 'index', db, collection, keys: Object.entries(args[0] as Record<string, unknown>) });
      const from = sender();
      const result = caller.run(from, () => current.apply(coll, args));
      // A cursor sends its command when it is first read: its reads run as the call did.
      if (
        result !== null &&
        typeof result === 'object' &&
        typeof (result as { toArray?: unknown }).toArray === 'function'
      )
        for (const read of ['toArray', 'next', 'hasNext'] as const) {
          const r = result as Record<string, (...a: unknown[]) => unknown>;
          const original = r[read];
          if (original) r[read] = (...a: unknown[]) => caller.run(from, () => original.apply(result, a));
        }
      return result;
    };
  }
}
