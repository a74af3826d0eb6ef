import type mongoose from 'mongoose';

import type { DocLocks } from './locks';
import { isOperators as isOps, onlyEqualities, type ReadOptions, type Reads } from './reads';

/**
 * A collection that behaves on FerretDB 1.24 as on MongoDB under the driver's own methods (README "FerretDB and
 * MongoDB"): an update, replace or conditional delete holds the locks (locks.ts) of the documents it may change from
 * before FerretDB reads them to after it writes them; without one `_id`, the matching ids are read, locked and the
 * write narrowed to them. Inserts and deletes by `_id` need nothing. Pages and counts are reads.ts's.
 */
export interface AdapterContext {
  dbName: string;
  locks: DocLocks;
  reads(collection: string): Reads;
  /** Makes a model's fields known to the reads of its collection. */
  describe(collection: string, schema: mongoose.Schema): void;
  /** An index about to be created (TTL indexes): the options to create it with. */
  onIndex(collection: string, keys: Record<string, unknown>, options: Record<string, unknown>): Record<string, unknown>;
  afterIndex(collection: string, keys: Record<string, unknown>): Promise<void>;
  /** An index dropped by name. */
  onDropIndex(collection: string, name: string): void;
}

type Filter = Record<string, unknown>;
type Options = Record<string, unknown> & { upsert?: boolean; sort?: unknown; includeResultMetadata?: boolean };
type Method = (...args: unknown[]) => unknown;
const COUNTS = ['matchedCount', 'modifiedCount', 'upsertedCount', 'deletedCount'] as const;
type Counts = Partial<Record<(typeof COUNTS)[number], number>> & { acknowledged?: boolean; upsertedId?: unknown };

const ADAPTED = Symbol.for('platform.db.adapted');
const CHUNK = 256; // documents locked per write of a multi-document update or delete
const LOOKS = 5; // looks of a single-document write whose document moved before its lock
const isId = (v: unknown) =>
  typeof v === 'string' || typeof v === 'number' || (v !== null && typeof v === 'object' && !isOps(v));
/** The one `_id` a filter names (`{_id: v}`, `{_id: {$eq: v}}`). */
const oneIdOf = (f: Filter): unknown =>
  isId(f._id) ? f._id : isOps(f._id) && Object.keys(f._id).length === 1 && isId(f._id.$eq) ? f._id.$eq : undefined;
const hasEquality = (f: Filter) => Object.entries(f).some(([k, v]) => k !== '_id' && !k.startsWith('$') && !isOps(v));
const onlyId = (f: Filter) => Object.keys(f).length === 1 && oneIdOf(f) !== undefined;
/**
 * Statements of one bulk write (FerretDB 1.24 stops answering an `update` of 64 statements; MongoDB takes 100,000):
 * the one place that limit is kept.
 */
export const BULK_MAX = 32;
/** The `_id` of a bulk write's operation when it is an `updateOne` by one `_id` without upsert; else undefined. */
function updateByIdOf(op: unknown): unknown {
  const u = (op as { updateOne?: { filter?: Filter; upsert?: boolean } } | null)?.updateOne;
  return u?.filter && !u.upsert ? oneIdOf(u.filter) : undefined;
}
/** An upsert's lock while no document matches: its filter, whatever the order of its fields. */
const upsertKeyOf = (f: Filter) => JSON.stringify(Object.entries(f).sort(([a], [b]) => (a < b ? -1 : 1)));

function sum(a: Counts, b: Counts): Counts {
  const out: Counts = { ...a, ...b, acknowledged: true, upsertedId: a.upsertedId ?? b.upsertedId ?? null };
  for (const k of COUNTS) if (a[k] !== undefined || b[k] !== undefined) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return out;
}
const NO_UPDATE: Counts = { acknowledged: true, matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null };
const NO_DELETE: Counts = { acknowledged: true, deletedCount: 0 };
const changed = (r: Counts) => (r.matchedCount ?? 0) + (r.upsertedCount ?? 0) + (r.deletedCount ?? 0) > 0;

/**
 * Installs the FerretDB behaviour on a mongoose collection (once: the models of one collection share it), and makes
 * each model's fields known to its reads.
 */
export function adaptCollection(coll: mongoose.Collection, schema: mongoose.Schema, ctx: AdapterContext): void {
  ctx.describe(coll.name, schema);
  const target = coll as unknown as Record<string | symbol, unknown>;
  if (target[ADAPTED]) return;
  target[ADAPTED] = true;
  const proto = Object.getPrototypeOf(coll) as Record<string, Method>;
  const call = <R = Counts>(name: string, ...args: unknown[]) => proto[name]!.apply(coll, args) as Promise<R>;
  const keyOf = (id: unknown) => `${ctx.dbName}\u0000${coll.name}\u0000${typeof id}:${String(id)}`;
  const reads = ctx.reads(coll.name);
  const findAll = async (filter: Filter, o: ReadOptions) =>
    (await reads.find(filter, o)) ??
    (proto.find!.call(coll, filter, o) as { toArray(): Promise<Record<string, unknown>[]> }).toArray();
  const idsMatching = async (filter: Filter, o: ReadOptions) =>
    (await findAll(filter, { ...o, projection: { _id: 1 } })).map((d) => d._id);
  /** A write of every matching document, locked and written a chunk at a time. */
  async function many(filter: Filter, run: (f: Filter) => Promise<Counts>, none: Counts): Promise<Counts> {
    const id = oneIdOf(filter);
    if (id !== undefined) return ctx.locks.hold([keyOf(id)], () => run(filter));
    const ids = await idsMatching(filter, {});
    let out = none;
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      // Without another equality, `$in` would make FerretDB read the whole collection: one write per id instead.
      const write = hasEquality(filter)
        ? () => run({ ...filter, _id: { $in: chunk } })
        : async () => (await Promise.all(chunk.map((x) => run({ ...filter, _id: x })))).reduce(sum, none);
      out = sum(out, await ctx.locks.hold(chunk.map(keyOf), write));
    }
    return out;
  }
  const noDoc = (o: Options) =>
    o.includeResultMetadata ? { value: null, ok: 1, lastErrorObject: { n: 0, updatedExisting: false } } : null;
  const found = (o: Options, r: unknown) =>
    (o.includeResultMetadata ? (r as { value?: unknown } | null)?.value : r) != null;
  const counted = (_: Options, r: unknown) => changed(r as Counts);
  /**
   * A write of at most one document by the driver's method `name`: (filter, opts) or, `withChange`, (filter, change,
   * opts). Without one `_id`, it is narrowed to a matching document seen and locked (no upsert then), and looked for
   * again if that document changed before its lock.
   */
  const single =
    (name: string, withChange: boolean, none: (o: Options) => unknown, hit: (o: Options, r: unknown) => boolean) =>
    async (filter: Filter, ...args: unknown[]) => {
      const o = ((withChange ? args[1] : args[0]) ?? {}) as Options;
      const run = (f: Filter, seen = false) =>
        call(name, f, ...(withChange ? [args[0]] : []), seen ? { ...o, upsert: false } : o);
      const id = oneIdOf(filter);
      if (id !== undefined) return ctx.locks.hold([keyOf(id)], () => run(filter));
      for (let look = 0; look < LOOKS; look++) {
        const [seen] = await idsMatching(filter, { sort: o.sort, limit: 1 });
        if (seen === undefined) return o.upsert ? ctx.locks.hold([upsertKeyOf(filter)], () => run(filter)) : none(o);
        const r = await ctx.locks.hold([keyOf(seen)], () => run({ ...filter, _id: seen }, true));
        if (hit(o, r)) return r;
      }
      return none(o);
    };
  const methods: Record<string, (...args: never[]) => unknown> = {
    findOneAndUpdate: single('findOneAndUpdate', true, noDoc, found),
    findOneAndReplace: single('findOneAndReplace', true, noDoc, found),
    findOneAndDelete: single('findOneAndDelete', false, noDoc, found),
    updateOne: single('updateOne', true, () => NO_UPDATE, counted),
    replaceOne: single('replaceOne', true, () => NO_UPDATE, counted),
    deleteOne: (filter: Filter, opts: Options = {}) =>
      onlyId(filter)
        ? call('deleteOne', filter, opts)
        : single('deleteOne', false, () => NO_DELETE, counted)(filter, opts),
    deleteMany: (filter: Filter, opts: Options = {}) =>
      onlyId(filter) ? call('deleteMany', filter, opts) : many(filter, (f) => call('deleteMany', f, opts), NO_DELETE),
    updateMany: async (filter: Filter, change: unknown, opts: Options = {}) => {
      const r = await many(filter, (f) => call('updateMany', f, change, { ...opts, upsert: false }), NO_UPDATE);
      return !opts.upsert || changed(r)
        ? r
        : ctx.locks.hold([upsertKeyOf(filter)], () => call('updateMany', filter, change, opts));
    },
    // Updates of documents named by `_id` (statistics of many targets in one command), their locks taken together;
    // any other bulk write is not made atomic here: the domain writes those with the calls above.
    bulkWrite: (ops: unknown[], opts: Options = {}) => {
      const ids = ops.map(updateByIdOf);
      if (ops.length === 0 || ops.length > BULK_MAX || ids.some((id) => id === undefined))
        return Promise.reject(
          new Error(
            `bulkWrite on the development server takes 1 to ${BULK_MAX} updateOne operations by _id, without upsert`,
          ),
        );
      return ctx.locks.hold(ids.map(keyOf), () => call('bulkWrite', ops, opts));
    },
    findOne: async (filter: Filter = {}, opts: Options = {}) => {
      if (!opts.sort && onlyEqualities(filter)) return call('findOne', filter, opts);
      const found = await reads.find(filter, { ...opts, limit: 1 });
      return found ? (found[0] ?? null) : call('findOne', filter, opts);
    },
    countDocuments: async (filter: Filter = {}, opts: Options = {}) =>
      (await reads.count(filter, opts)) ?? call('countDocuments', filter, opts),
    // A page (a limit) is read at once from PostgreSQL; anything else as FerretDB streams it.
    find: (filter: Filter = {}, opts: Options & ReadOptions = {}) =>
      opts.limit && !opts.explain ? pageCursor(() => findAll(filter, opts)) : proto.find!.call(coll, filter, opts),
    createIndex: async (keys: Record<string, unknown>, opts: Record<string, unknown> = {}) => {
      const created = await call<unknown>('createIndex', keys, ctx.onIndex(coll.name, keys, opts));
      await ctx.afterIndex(coll.name, keys);
      return created;
    },
    dropIndex: async (name: string, opts: Options = {}) => {
      const dropped = await call<unknown>('dropIndex', name, opts);
      ctx.onDropIndex(coll.name, name);
      return dropped;
    },
  };
  Object.assign(target, methods);
}

/** The cursor methods mongoose uses (`toArray` for a query, `next` for its cursor), over documents read at once. */
function pageCursor(load: () => Promise<Record<string, unknown>[]>) {
  let docs: Promise<Record<string, unknown>[]> | undefined;
  let at = 0;
  return {
    next: async () => (await (docs ??= load()))[at++] ?? null,
    toArray: async () => (await (docs ??= load())).slice(at),
    close: () => Promise.resolve(),
  };
}
