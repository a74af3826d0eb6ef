import mongoose, { type Connection, type Model, type UpdateQuery } from 'mongoose';

import { isDuplicateKeyError } from './duplicate-key';
import { ensureLookupIndexes } from './ferretdb-indexes';
import { insertEach } from './group-commit';
import { atomicStrategy } from './server-kind';

export { atomicStrategy, type AtomicStrategy } from './server-kind';

/**
 * Atomic single-document updates on both servers we run on.
 *
 * MongoDB applies `findOneAndUpdate` atomically. FerretDB 1.24 (our development and test server) does not: it
 * reads matching documents, applies the operators in process and writes the whole document back by `_id`, so two
 * concurrent conditional updates can both "win" and two `$inc`s can lose one. Inserts into a unique index and
 * deletes are atomic there, so on FerretDB every update claims the document's revision first by inserting
 * `<collection>:<id>:<rev>` into `_revision_claims` (unique `_id`); only the claimant writes, bumping `_rev`.
 * Every update of a collection that uses this must go through it. `_rev` lives outside the schemas (strict: false).
 */

interface ClaimDoc {
  _id: string;
  at: Date;
}

const claimSchema = new mongoose.Schema<ClaimDoc>({ _id: String, at: Date }, { versionKey: false });
const STALE_CLAIM_MS = 30_000;

/** The revision claims of a connection; its `_id` lookups get their FerretDB GIN index once (development only). */
function claimsModel(conn: Connection): Model<ClaimDoc> {
  const existing = conn.models._RevisionClaim as Model<ClaimDoc> | undefined;
  if (existing) return existing;
  const model = conn.model<ClaimDoc>('_RevisionClaim', claimSchema, '_revision_claims');
  model.on('index', () => void ensureLookupIndexes(model).catch(() => undefined));
  return model;
}

/**
 * Creates the revision claims collection and its index now. Call at start (`syncIndexes` does): made by the first
 * update under load instead, its creation hangs FerretDB 1.24 (measured: 256 concurrent cron fires of two workers
 * stopped every client for a minute, PostgreSQL idle, the collection missing).
 */
export async function prepareAtomicUpdates(conn: Connection): Promise<void> {
  const Claims = claimsModel(conn);
  await Claims.init();
  await ensureLookupIndexes(Claims).catch(() => undefined);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface AtomicUpdateOptions {
  upsert?: boolean;
  /** Attempts before giving up under heavy contention. */
  attempts?: number;
}

/**
 * Applies `update` to the first document matching `filter`, atomically, and returns the updated document
 * (lean), or null when nothing matches. The filter is evaluated against the document actually updated.
 */
export async function atomicUpdateOne<T>(
  model: Model<T>,
  filter: Record<string, unknown>,
  update: UpdateQuery<T>,
  opts: AtomicUpdateOptions = {},
): Promise<T | null> {
  const conn = model.db;
  if ((await atomicStrategy(conn)) === 'native') {
    return model
      .findOneAndUpdate(
        filter,
        { ...update, $inc: { ...(update.$inc ?? {}), _rev: 1 } },
        {
          returnDocument: 'after',
          upsert: opts.upsert ?? false,
          strict: false,
        },
      )
      .lean<T>();
  }
  const Claims = claimsModel(conn);
  const attempts = opts.attempts ?? 200;
  for (let i = 0; i < attempts; i++) {
    const doc = await model.findOne(filter).lean<{ _id: unknown; _rev?: number }>();
    if (!doc) {
      if (!opts.upsert) return null;
      const inserted = insertDocFor(filter, update);
      try {
        await model.collection.insertOne(inserted);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        continue; // a concurrent upsert inserted it first: update that one
      }
      return inserted as T; // not re-read: a concurrent update may already have changed it
    }
    const rev = doc._rev ?? 0;
    const claimId = `${model.collection.name}:${String(doc._id)}:${rev}`;
    try {
      await Claims.create({ _id: claimId, at: new Date() });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      await releaseIfStale(Claims, claimId);
      await sleep(Math.random() * Math.min(2 + i, 20));
      continue;
    }
    const inc = { ...((update.$inc as Record<string, number>) ?? {}), _rev: 1 };
    // The claim makes this the only writer of revision `rev`; returning what it wrote (not a re-read, which a
    // later writer may already have changed) keeps results such as sequence values unique.
    // The write is also conditioned on the claimed revision, so the claim can go as soon as the write is done: a
    // late claimant of the same revision finds the document moved on and writes nothing. Claims so never pile up
    // (sweeping a large claims collection is a full scan on FerretDB).
    const current = rev === 0 ? { $in: [null, 0] } : rev;
    let updated: T | null;
    try {
      updated = await model
        .findOneAndUpdate(
          { _id: doc._id, _rev: current } as Record<string, unknown>,
          { ...update, $inc: inc },
          {
            returnDocument: 'after',
            strict: false,
          },
        )
        .lean<T>();
    } catch (err) {
      // The store went away between the claim and the write: free the claim as soon as it is back, so that a retry
      // of this update does not wait for the claim to go stale.
      releaseWhenPossible(Claims, claimId);
      throw err;
    }
    await Claims.deleteOne({ _id: claimId }).catch(() => releaseWhenPossible(Claims, claimId));
    if (Math.random() < 0.001) void sweepClaims(Claims);
    if (updated) return updated;
  }
  throw new AtomicConflictError(model.collection.name);
}

/** One update of `atomicUpdateEach`: the document `id`, applied only while it still matches `filter`. */
export interface AtomicItem<T> {
  id: unknown;
  /** Conditions besides the `_id` (evaluated against the document actually updated). */
  filter: Record<string, unknown>;
  update: UpdateQuery<T>;
  /**
   * An indexed equality the document is known to have, shared by documents written together (e.g. the batch that
   * inserted them). FerretDB 1.24 serves `_id: {$in}` by reading the whole collection; scoped by this equality, it
   * reads only that key's few documents. Without it, each document is read alone by its `_id`.
   */
  near?: Record<string, unknown>;
  /** The revision the document is expected at (e.g. 0 for one never updated): tried without reading it first. */
  rev?: number;
}

export interface AtomicEachOptions {
  /** Rounds before an item whose document stays claimed by others fails with AtomicConflictError. */
  attempts?: number;
  /**
   * Keep a lease on each updated document (FerretDB): the claim of the revision the update made is kept, so that
   * the holder's next update of it (`updateUnderLease`) needs no read and no claim of its own. Another writer waits
   * for the lease, or takes it once it is older than the stale-claim age. No effect on MongoDB.
   */
  hold?: boolean;
}

interface Taken {
  i: number;
  key: string;
  /** The revision claimed, and the one the write moves the document to. */
  rev: number;
  next: number;
  group: string;
  guessed: boolean;
}

type Outcome<T> = T | null | Error | undefined;

const nearKey = (near: Record<string, unknown> | undefined) => (near ? JSON.stringify(near) : '');

/**
 * `atomicUpdateOne` for many documents at once, each update atomic on its own document as there, with one outcome
 * per item: the updated document (lean, with its `_rev`), null when it does not exist or its filter no longer
 * matches, or an error. On MongoDB each item is one `findOneAndUpdate`, sent together. On FerretDB the items share
 * their commands: one read of their revisions (none for items whose revision is given), one insert of all their
 * revision claims, then one `updateMany` and one read back for each group of items with the same scope, filter,
 * update and revision, else one `findOneAndUpdate` each. Claims of documents that were not updated are deleted at
 * once; those of updated ones (stale: the revision moved on) in the background. An item whose claim another writer
 * holds tries again in the next round. Every update of the collection must go through the claims (this,
 * `atomicUpdateOne` or `updateUnderLease`).
 */
export async function atomicUpdateEach<T>(
  model: Model<T>,
  items: AtomicItem<T>[],
  opts: AtomicEachOptions = {},
): Promise<(T | null | Error)[]> {
  if ((await atomicStrategy(model.db)) === 'native') {
    return Promise.all(
      items.map((it) =>
        atomicUpdateOne(model, { ...it.filter, _id: it.id }, it.update).catch((err: unknown) => asError(err)),
      ),
    );
  }
  const Claims = claimsModel(model.db);
  const claim = insertEach(Claims);
  const results: Outcome<T>[] = items.map(() => undefined);
  const claimIdOf = (key: string, rev: number) => `${model.collection.name}:${key}:${rev}`;
  let todo = items.map((_, i) => i);
  const guessing = new Set(items.flatMap((it, i) => (it.rev === undefined ? [] : [i])));
  const attempts = opts.attempts ?? 200;
  for (let round = 0; todo.length > 0 && round < attempts; round++) {
    const contended = round > 0 && todo.some((i) => !guessing.has(i));
    if (contended) await sleep(Math.random() * Math.min(2 + round, 20));
    const revs = await readRevisions(
      model,
      items,
      todo.filter((i) => !guessing.has(i)),
    );
    // One item per document a round: a second update of the same document waits for the next.
    const taking = new Map<string, Taken>();
    const later: number[] = [];
    // Items written together move their documents to one new revision, unique to this write: the read back tells
    // this write's documents from ones another writer moved before this claim was taken.
    const nextOf = new Map<string, number>();
    for (const i of todo) {
      const key = String(items[i]!.id);
      const guessed = guessing.has(i);
      const rev = guessed ? items[i]!.rev : revs.get(key);
      guessing.delete(i); // a guess is tried once
      if (rev === undefined) results[i] = null;
      else if (taking.has(key)) later.push(i);
      else {
        const group = groupKey(items[i]!, rev);
        if (!nextOf.has(group)) nextOf.set(group, newRevision());
        taking.set(key, { i, key, rev, next: nextOf.get(group)!, group, guessed });
      }
    }
    const claims = [...taking.values()];
    if (claims.length === 0) {
      todo = later;
      continue;
    }
    // The new revision is claimed too, in the same insert, where nobody may move the document on from it before
    // this write is done with it: with `hold` (the caller's lease), and where a group is written by `updateMany`
    // and read back apart from it. There, another writer moving the document on between the two would make this
    // write look like someone else's, and it would be made again.
    const groupSize = new Map<string, number>();
    for (const c of claims) groupSize.set(c.group, (groupSize.get(c.group) ?? 0) + 1);
    const leased = new Set(
      claims.filter((c) => opts.hold || (groupSize.get(c.group)! > 1 && items[c.i]!.near !== undefined)),
    );
    const revsOf = (c: Taken) => (leased.has(c) ? [c.rev, c.next] : [c.rev]);
    const claimDocs = claims.flatMap((c) => revsOf(c).map((rev) => ({ _id: claimIdOf(c.key, rev), at: new Date() })));
    const claimed = await claim(claimDocs);
    const won: Taken[] = [];
    const release: string[] = [];
    const contested: string[] = [];
    let offset = 0;
    claims.forEach((c) => {
      const n = revsOf(c).length;
      const outcomes = claimed.slice(offset, offset + n);
      const docs = claimDocs.slice(offset, offset + n);
      offset += n;
      const refused = outcomes.find((o) => o !== null);
      if (!refused) return void won.push(c);
      outcomes.forEach((o, r) => (o === null ? release.push(docs[r]!._id) : undefined));
      if (isDuplicateKeyError(refused)) {
        later.push(c.i);
        if (!c.guessed) contested.push(claimIdOf(c.key, c.rev));
      } else results[c.i] = refused;
    });
    let written = new Map<number, Written<T>>();
    try {
      written = await writeClaimed(model, items, won);
    } finally {
      for (const c of won) {
        const w = written.get(c.i);
        if (w && w !== 'unchanged' && w !== 'moved') {
          results[c.i] = w;
          retireClaim(Claims, claimIdOf(c.key, c.rev)); // the document has left that revision: it blocks nobody
          // The new revision's claim (not the caller's lease) goes now: the document may move on from it.
          if (leased.has(c) && !opts.hold) release.push(claimIdOf(c.key, c.next));
          continue;
        }
        release.push(claimIdOf(c.key, c.rev), ...(leased.has(c) ? [claimIdOf(c.key, c.next)] : []));
        if (w === 'unchanged')
          results[c.i] = null; // its filter no longer matches
        else if (w === 'moved') later.push(c.i); // another writer moved it before this claim: read it again
      }
      if (release.length > 0)
        await Claims.deleteMany({ _id: { $in: release } }).catch(() =>
          release.forEach((id) => releaseWhenPossible(Claims, id)),
        );
    }
    await Promise.all(contested.map((id) => releaseIfStale(Claims, id)));
    if (Math.random() < 0.001) void sweepClaims(Claims);
    todo = later;
  }
  return results.map((r) => (r === undefined ? new AtomicConflictError(model.collection.name) : r));
}

/** A new revision number, unique to one write (random below 2^52, so a collision is out of reach). */
const newRevision = () => Math.floor(Math.random() * 2 ** 52) + 1;

/** Items written together: the same scope, filter, update and claimed revision. */
const groupKey = <T>(it: AtomicItem<T>, rev: number) => JSON.stringify([rev, it.near ?? null, it.filter, it.update]);

/** The current revisions of the items' documents: one read per scope (`near`), one by `_id` for items without. */
async function readRevisions<T>(
  model: Model<T>,
  items: AtomicItem<T>[],
  which: number[],
): Promise<Map<string, number>> {
  const scopes = new Map<string, number[]>();
  for (const i of which) {
    const k = nearKey(items[i]!.near);
    scopes.set(k, [...(scopes.get(k) ?? []), i]);
  }
  const revs = new Map<string, number>();
  const reads: Promise<void>[] = [];
  const read = async (filter: Record<string, unknown>) => {
    for (const d of await model.find(filter, { _rev: 1 }).lean<{ _id: unknown; _rev?: number }[]>())
      revs.set(String(d._id), d._rev ?? 0);
  };
  for (const [k, group] of scopes) {
    if (k === '') reads.push(...group.map((i) => read({ _id: items[i]!.id })));
    else reads.push(read({ ...items[group[0]!]!.near, _id: { $in: group.map((i) => items[i]!.id) } }));
  }
  await Promise.all(reads);
  return revs;
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** The revision filter of a claimed revision (a document never updated has none). */
const revisionIs = (rev: number) => (rev === 0 ? { $in: [null, 0] } : rev);

/**
 * What the write of a claimed item came to: the updated document; `unchanged` (still at the claimed revision: its
 * filter does not match); `moved` (at another revision: another writer moved it before this claim was taken).
 */
type Written<T> = T | 'unchanged' | 'moved';

/**
 * The writes of claimed items: a group (same scope, filter, update and revision) in one `updateMany` over its ids
 * and one read back, others one `findOneAndUpdate` each (and a read of the revision when it matched nothing). Each
 * is conditioned on the claimed revision, as in `atomicUpdateOne`, and sets the group's new revision.
 */
async function writeClaimed<T>(
  model: Model<T>,
  items: AtomicItem<T>[],
  won: Taken[],
): Promise<Map<number, Written<T>>> {
  const out = new Map<number, Written<T>>();
  const groups = new Map<string, Taken[]>();
  for (const c of won) groups.set(c.group, [...(groups.get(c.group) ?? []), c]);
  const judge = (c: Taken, d: { _rev?: number } | null | undefined): Written<T> =>
    !d ? 'moved' : d._rev === c.next ? (d as T) : (d._rev ?? 0) === c.rev ? 'unchanged' : 'moved';
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const { filter, update, near } = items[group[0]!.i]!;
      const { rev, next } = group[0]!;
      const write = { ...update, $set: { ...((update.$set as Record<string, unknown>) ?? {}), _rev: next } };
      if (group.length === 1 || !near) {
        await Promise.all(
          group.map(async (c) => {
            const id = items[c.i]!.id;
            const d = await model
              .findOneAndUpdate({ ...filter, _id: id, _rev: revisionIs(rev) } as Record<string, unknown>, write, {
                returnDocument: 'after',
                strict: false,
              })
              .lean<T>();
            // Nothing matched: its filter, or its revision (it moved before the claim)? The claim keeps it still.
            out.set(
              c.i,
              judge(
                c,
                d ??
                  (await model
                    .findOne({ _id: id } as Record<string, unknown>, { _rev: 1 })
                    .lean<{ _rev?: number }>()) ?? { _rev: -1 },
              ),
            );
          }),
        );
        return;
      }
      const ids = group.map((c) => items[c.i]!.id);
      await model.updateMany(
        { ...filter, ...near, _id: { $in: ids }, _rev: revisionIs(rev) } as Record<string, unknown>,
        write,
        { strict: false },
      );
      const after = new Map(
        (
          await model
            .find({ ...near, _id: { $in: ids } } as Record<string, unknown>)
            .lean<(T & { _id: unknown; _rev?: number })[]>()
        ).map((d) => [String(d._id), d]),
      );
      for (const c of group) out.set(c.i, judge(c, after.get(c.key) ?? { _rev: -1 }));
    }),
  );
  return out;
}

/**
 * The holder's update of a document it leases (`atomicUpdateEach` with `hold`, the lease being revision `rev`):
 * one conditional write, then the lease goes in the background. Null when the document left that revision (the
 * lease went stale and another writer took it). `filter` is what the holder knows of the document since its lease
 * (checked on MongoDB, where this is a plain atomic update).
 */
export async function updateUnderLease<T>(
  model: Model<T>,
  id: unknown,
  rev: number,
  filter: Record<string, unknown>,
  update: UpdateQuery<T>,
): Promise<T | null> {
  if ((await atomicStrategy(model.db)) === 'native') return atomicUpdateOne(model, { ...filter, _id: id }, update);
  // At the leased revision the document is as the lease's own write left it (no one else wrote since), so `filter`
  // holds by construction; left out, it cannot steer FerretDB's PostgreSQL to a less selective index (a status's).
  const doc = await model
    .findOneAndUpdate(
      { _id: id, _rev: revisionIs(rev) } as Record<string, unknown>,
      { ...update, $inc: { ...((update.$inc as Record<string, number>) ?? {}), _rev: 1 } },
      {
        returnDocument: 'after',
        strict: false,
      },
    )
    .lean<T>();
  const lease = `${model.collection.name}:${String(id)}:${rev}`;
  // Moved on: the lease is stale and goes in the background. Not moved (the filter failed): it goes now.
  if (doc) retireClaim(claimsModel(model.db), lease);
  else await releaseLease(model, id, rev);
  return doc;
}

/** Gives a lease up without writing (the holder will not update the document after all). */
export async function releaseLease<T>(model: Model<T>, id: unknown, rev: number): Promise<void> {
  if ((await atomicStrategy(model.db)) === 'native') return;
  const Claims = claimsModel(model.db);
  const lease = `${model.collection.name}:${String(id)}:${rev}`;
  await Claims.deleteOne({ _id: lease }).catch(() => releaseWhenPossible(Claims, lease));
}

/** Claims of revisions their documents have left, deleted together a moment later (they block nobody). */
const retiring = new WeakMap<Model<ClaimDoc>, { ids: Set<string>; timer: NodeJS.Timeout | null }>();
const RETIRE_AFTER_MS = 1_000;
const RETIRE_BATCH = 256;

function retireClaim(Claims: Model<ClaimDoc>, claimId: string): void {
  let r = retiring.get(Claims);
  if (!r) retiring.set(Claims, (r = { ids: new Set(), timer: null }));
  r.ids.add(claimId);
  const state = r;
  state.timer ??= setTimeout(function flush() {
    const batch = [...state.ids].slice(0, RETIRE_BATCH);
    batch.forEach((id) => state.ids.delete(id));
    void Claims.deleteMany({ _id: { $in: batch } })
      .catch(() => undefined) // left to the sweep of old claims
      .finally(() => {
        state.timer = state.ids.size > 0 ? setTimeout(flush, RETIRE_AFTER_MS) : null;
        state.timer?.unref();
      });
  }, RETIRE_AFTER_MS);
  state.timer.unref();
}

/** An atomic update that could not claim its document within its attempts (contention, or a claim left by a failure). */
export class AtomicConflictError extends Error {
  override name = 'AtomicConflictError';
  constructor(collection: string) {
    super(`atomic update of ${collection} kept conflicting`);
  }
}

/** Deletes a claim, retrying with capped backoff for up to the stale-claim age (after which it goes anyway). */
function releaseWhenPossible(Claims: Model<ClaimDoc>, claimId: string): void {
  const deadline = Date.now() + STALE_CLAIM_MS;
  const attempt = (delay: number): void => {
    Claims.deleteOne({ _id: claimId }).then(
      () => undefined,
      () => {
        if (Date.now() < deadline) setTimeout(() => attempt(Math.min(delay * 2, 2_000)), delay).unref();
      },
    );
  };
  attempt(100);
}

/** The document an upsert inserts: the filter's equality fields plus the update's values. */
function insertDocFor(filter: Record<string, unknown>, update: UpdateQuery<unknown>): Record<string, unknown> {
  const doc: Record<string, unknown> = { _rev: 0 };
  for (const [k, v] of Object.entries(filter)) {
    const isOperator =
      v !== null && typeof v === 'object' && !(v instanceof Date) && Object.keys(v).some((x) => x.startsWith('$'));
    if (!k.startsWith('$') && !isOperator) doc[k] = v;
  }
  for (const [op, fields] of Object.entries(update)) {
    for (const [k, v] of Object.entries((fields ?? {}) as Record<string, unknown>)) {
      if (op === '$set' || op === '$setOnInsert' || op === '$inc') doc[k] = v;
      else if (op === '$push') doc[k] = [v];
      else throw new Error(`atomicUpdateOne upsert does not support ${op}`);
    }
  }
  return doc;
}

/** A claimant that died between claiming and writing would block the document; after 30 s its claim goes. */
async function releaseIfStale(Claims: Model<ClaimDoc>, claimId: string): Promise<void> {
  await Claims.deleteOne({ _id: claimId, at: { $lt: new Date(Date.now() - STALE_CLAIM_MS) } });
}

/** Claims of claimants that died between claiming and releasing: the only ones left behind. */
async function sweepClaims(Claims: Model<ClaimDoc>): Promise<void> {
  await Claims.deleteMany({ at: { $lt: new Date(Date.now() - 10 * 60_000) } }).catch(() => undefined);
}
