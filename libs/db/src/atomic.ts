import mongoose, { type Connection, type Model, type UpdateQuery } from 'mongoose';

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
export type AtomicStrategy = 'native' | 'claims';

interface ClaimDoc {
  _id: string;
  at: Date;
}

const claimSchema = new mongoose.Schema<ClaimDoc>({ _id: String, at: Date }, { versionKey: false });
const STALE_CLAIM_MS = 30_000;
const strategies = new WeakMap<Connection, Promise<AtomicStrategy>>();

/** 'claims' on FerretDB (detected by its buildInfo), 'native' on MongoDB. Cached per connection. */
export function atomicStrategy(conn: Connection): Promise<AtomicStrategy> {
  let s = strategies.get(conn);
  if (!s) {
    s = (async () => {
      const db = conn.db;
      if (!db) throw new Error('connection is not open');
      const info = await db.admin().command({ buildInfo: 1 });
      return 'ferretdbVersion' in info ? 'claims' : 'native';
    })();
    s.catch(() => strategies.delete(conn));
    strategies.set(conn, s);
  }
  return s;
}

function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: unknown })?.code === 11000;
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
      .findOneAndUpdate(filter, { ...update, $inc: { ...(update.$inc ?? {}), _rev: 1 } } as UpdateQuery<T>, {
        returnDocument: 'after',
        upsert: opts.upsert ?? false,
        strict: false,
      })
      .lean<T>();
  }
  const Claims = (conn.models._RevisionClaim as Model<ClaimDoc> | undefined) ??
    conn.model<ClaimDoc>('_RevisionClaim', claimSchema, '_revision_claims');
  const attempts = opts.attempts ?? 200;
  for (let i = 0; i < attempts; i++) {
    const doc = await model.findOne(filter).lean<{ _id: unknown; _rev?: number }>();
    if (!doc) {
      if (!opts.upsert) return null;
      const inserted = insertDocFor(filter, update);
      try {
        await model.collection.insertOne(inserted);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        continue; // a concurrent upsert inserted it first: update that one
      }
      return inserted as T; // not re-read: a concurrent update may already have changed it
    }
    const rev = doc._rev ?? 0;
    const claimId = `${model.collection.name}:${String(doc._id)}:${rev}`;
    try {
      await Claims.create({ _id: claimId, at: new Date() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
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
    const updated = await model
      .findOneAndUpdate({ _id: doc._id, _rev: current } as Record<string, unknown>, { ...update, $inc: inc } as UpdateQuery<T>, {
        returnDocument: 'after',
        strict: false,
      })
      .lean<T>();
    await Claims.deleteOne({ _id: claimId }).catch(() => undefined);
    if (Math.random() < 0.001) void sweepClaims(Claims);
    if (updated) return updated;
  }
  throw new Error(`atomic update of ${model.collection.name} kept conflicting`);
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
