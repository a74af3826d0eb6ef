import mongoose, { type Connection, type Model, type UpdateQuery } from 'mongoose';
import { ensureLookupIndexes } from './ferretdb-indexes';
import { isDuplicateKeyError } from './duplicate-key';
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
      .findOneAndUpdate(filter, { ...update, $inc: { ...(update.$inc ?? {}), _rev: 1 } }, {
        returnDocument: 'after',
        upsert: opts.upsert ?? false,
        strict: false,
      })
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
        .findOneAndUpdate({ _id: doc._id, _rev: current } as Record<string, unknown>, { ...update, $inc: inc }, {
          returnDocument: 'after',
          strict: false,
        })
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
    const isOperator = v !== null && typeof v === 'object' && !(v instanceof Date) && Object.keys(v).some((x) => x.startsWith('$'));
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
