import {
  BULK_MAX,
  connectMongo,
  createSequence,
  expireNow,
  findKeysetPage,
  isDuplicateKeyError,
  modelFor,
  mongoose,
  syncIndexes,
  type Connection,
  type SortKeys,
} from '@platform/db';
import { eventually, startWireProxy, testInfra, uniqueName } from '@platform/testing';

/**
 * The store contract: what the domain relies on of its database, stated once and run on the real server through
 * `libs/db`: with the adapter (as every service runs), and in pass-through (the exact calls MongoDB gets). On
 * FerretDB the pass-through run leaves out the cases that need what FerretDB 1.24 lacks, each naming the limit; on
 * MongoDB both runs are the same calls and every case runs twice.
 */
interface Thing {
  key: string;
  status: string;
  n: number;
  t: number;
  claim?: string;
  expires_at?: Date | null;
}

const schema = new mongoose.Schema<Thing>(
  {
    key: { type: String, required: true },
    status: { type: String, default: 'queued' },
    n: { type: Number, default: 0 },
    t: { type: Number, default: 0 },
    claim: String,
    expires_at: { type: Date, default: null },
  },
  { versionKey: false },
);
schema.index({ key: 1, t: -1, _id: -1 });
schema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });
const uniqueSchema = new mongoose.Schema({ name: { type: String, required: true } }, { versionKey: false });
uniqueSchema.index({ name: 1 }, { unique: true });

/** What FerretDB 1.24 lacks, by the case that needs it (left out of the pass-through run on FerretDB). */
const FERRETDB_LIMITS = {
  atomic:
    'FerretDB 1.24 applies an update as a read of the matching documents and a write of each whole document back, ' +
    'with nothing between them: concurrent writers of one document both match, and one $inc overwrites another',
  ttl: 'FerretDB 1.24 refuses expireAfterSeconds: no TTL indexes',
};

const ROUNDS = 10;
const WRITERS = 32;

/** The server the tests run on (test/setup/global-setup.ts asks it). */
const FERRETDB = process.env.STORE_SERVER === 'ferretdb';

/** One store under contract, as the cases registered on it see it. */
interface Store {
  adapter: 'auto' | 'pass-through';
  /** The connection (made in beforeAll: read it in the test, not when registering). */
  conn: () => Connection;
  Thing: () => ReturnType<typeof modelFor<typeof schema>>;
  Unique: () => ReturnType<typeof modelFor<typeof uniqueSchema>>;
  /** Registers a case that needs what FerretDB 1.24 lacks, or records it as left out of this run. */
  needs: (limit: keyof typeof FERRETDB_LIMITS, name: string, fn: () => Promise<void>, timeout?: number) => void;
}

describe.each([
  ['through the adapter', 'auto'],
  ['pass-through', 'pass-through'],
] as const)('store contract, %s', (_label, adapter) => {
  let conn: Connection;
  const Thing = () => modelFor(conn, 'Thing', schema, 'things');
  const Unique = () => modelFor(conn, 'Unique', uniqueSchema, 'uniques');
  /** Whether a case that needs what FerretDB lacks runs here: everywhere but in pass-through on FerretDB. */
  const exempt = adapter === 'pass-through' && FERRETDB;
  const needs = (limit: keyof typeof FERRETDB_LIMITS, name: string, fn: () => Promise<void>, timeout?: number) => {
    if (exempt) exempted.push({ name, limit: FERRETDB_LIMITS[limit] });
    else test(name, fn, timeout);
  };
  const exempted: { name: string; limit: string }[] = [];

  beforeAll(async () => {
    conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('contract'), adapter });
    Thing();
    Unique();
    if (!exempt) await syncIndexes(conn);
    else
      await Promise.all([
        Unique().init(),
        Thing()
          .createCollection()
          .catch(() => undefined),
      ]);
  });
  afterAll(async () => {
    await conn.dropDatabase();
    await conn.close();
  });

  const store: Store = { adapter, conn: () => conn, Thing, Unique, needs };
  concurrentWritesHaveOneOutcome(store);

  needs(
    'ttl',
    'a TTL-declared document goes away, and one not yet due stays',
    async () => {
      const now = Date.now();
      const [due, later] = await Thing().insertMany([
        { key: 'ttl', expires_at: new Date(now - 1000) },
        { key: 'ttl', expires_at: new Date(now + 3_600_000) },
      ]);
      // MongoDB's TTL monitor runs once a minute; the adapter's sweep is asked to run now.
      await eventually(
        'the expired document to go',
        async () => {
          await expireNow(conn);
          return (await Thing().findById(due!._id).lean()) === null ? true : undefined;
        },
        130_000,
      );
      expect(await Thing().findById(later!._id).lean()).not.toBeNull();
    },
    150_000,
  );

  if (exempt)
    test('each case left out of the pass-through run on FerretDB names the limit that needs the adapter', () => {
      expect(exempted.map((e) => e.name)).toHaveLength(7);
      for (const e of exempted) expect(Object.values(FERRETDB_LIMITS)).toContain(e.limit);
    });

  pagesAndResentClaimsCountOnce(store);
});

/** Concurrent writers of one store: one winner per conditional update, exact counters, one insert per unique key. */
function concurrentWritesHaveOneOutcome(store: Store): void {
  const { Thing, Unique, conn, needs } = store;
  const atomic = (name: string, fn: () => Promise<void>) => needs('atomic', name, fn);

  atomic(`a conditional update under ${WRITERS} concurrent writers has exactly one winner`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { _id } = await Thing().create({ key: `claim-${round}` });
      const winners = await Promise.all(
        Array.from({ length: WRITERS }, () =>
          Thing()
            .findOneAndUpdate({ _id, status: 'queued' }, { $set: { status: 'running' } }, { returnDocument: 'after' })
            .lean(),
        ),
      );
      expect(winners.filter((w) => w !== null)).toHaveLength(1);
    }
  });

  atomic('a conditional update by another field than _id has exactly one winner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await Thing().create({ key: `by-key-${round}` });
      const results = await Promise.all(
        Array.from({ length: WRITERS }, () =>
          Thing().updateOne({ key: `by-key-${round}`, status: 'queued' }, { $set: { status: 'running' } }),
        ),
      );
      expect(results.reduce((s, r) => s + r.modifiedCount, 0)).toBe(1);
    }
  });

  atomic(`$inc under ${WRITERS} writers is exact`, async () => {
    const { _id } = await Thing().create({ key: 'inc' });
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        for (let i = 0; i < 6; i++) await Thing().updateOne({ _id }, { $inc: { n: 1 } });
      }),
    );
    expect((await Thing().findById(_id).lean())?.n).toBe(WRITERS * 6);
  });

  atomic(
    `bulk $inc by _id (one command per ${BULK_MAX} documents) beside ${WRITERS} single writers is exact`,
    async () => {
      const docs = await Thing().insertMany(Array.from({ length: 3 }, (_, i) => ({ key: 'bulk-inc', t: i })));
      const ids = docs.map((d) => d._id);
      await Promise.all([
        ...Array.from({ length: WRITERS }, async () => {
          for (let i = 0; i < 3; i++)
            await Thing().collection.bulkWrite(
              ids.map((_id) => ({ updateOne: { filter: { _id }, update: { $inc: { n: 1 } } } })),
              { ordered: false },
            );
        }),
        ...Array.from({ length: WRITERS }, async () => {
          for (let i = 0; i < 3; i++) await Thing().updateOne({ _id: ids[i] }, { $inc: { n: 1 } });
        }),
      ]);
      const stored = await Thing().find({ key: 'bulk-inc' }).lean();
      expect(stored.map((d) => d.n)).toEqual([WRITERS * 4, WRITERS * 4, WRITERS * 4]);
    },
  );

  atomic('an upserted counter ($inc with upsert) hands out every value once', async () => {
    const next = createSequence(conn(), 'contract');
    const values = await Promise.all(Array.from({ length: WRITERS }, () => next()));
    expect(new Set(values).size).toBe(WRITERS);
    expect(Math.max(...values)).toBe(WRITERS);
  });

  atomic('concurrent conditional updateMany calls change each document once', async () => {
    const docs = await Thing().insertMany(Array.from({ length: 40 }, (_, i) => ({ key: 'many', t: i })));
    const ids = docs.map((d) => d._id);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        Thing().updateMany({ _id: { $in: ids }, status: 'queued' }, { $set: { status: 'paused' }, $inc: { n: 1 } }),
      ),
    );
    expect(results.reduce((s, r) => s + r.modifiedCount, 0)).toBe(40);
    const stored = await Thing().find({ key: 'many' }).lean();
    expect(stored.every((d) => d.n === 1 && d.status === 'paused')).toBe(true);
  });

  test('a unique index refuses the second insert of a race', async () => {
    const results = await Promise.allSettled(Array.from({ length: WRITERS }, () => Unique().create({ name: 'race' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.every((r) => isDuplicateKeyError(r.reason))).toBe(true);
    expect(await Unique().countDocuments({ name: 'race' })).toBe(1);
  });
}

/** Reading in pages while the collection changes, and a claim sent again after a lost reply, each count once. */
function pagesAndResentClaimsCountOnce(store: Store): void {
  const { Thing, conn, adapter } = store;
  test('keyset pages over a changing collection return every document once, in order', async () => {
    const sort: SortKeys = [
      ['t', -1],
      ['_id', -1],
    ];
    // Ties on t on purpose: the order is decided by _id within a t.
    const kept = await Thing().insertMany(Array.from({ length: 240 }, (_, i) => ({ key: 'pages', t: i % 60 })));
    const removed = await Thing().insertMany(Array.from({ length: 30 }, (_, i) => ({ key: 'pages', t: i * 2 })));
    const seen: { id: string; t: number }[] = [];
    let after: unknown[] | undefined;
    for (let page = 0; ; page++) {
      const got = await findKeysetPage<{ _id: unknown; t: number }>(Thing(), { key: 'pages' }, sort, 25, after);
      seen.push(...got.items.map((d) => ({ id: String(d._id), t: d.t })));
      // Meanwhile: newer documents arrive (before the cursor), some not yet read go, older ones arrive behind it.
      await Thing().insertMany([{ key: 'pages', t: 1000 + page }]);
      if (page < removed.length / 10)
        await Thing().deleteMany({ _id: { $in: removed.slice(page * 10, page * 10 + 10).map((d) => d._id) } });
      if (!got.next) break;
      after = got.next;
    }
    const ids = seen.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const d of kept) expect(ids).toContain(String(d._id));
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1]!, seen[i]!];
      expect(a.t > b.t || (a.t === b.t && a.id > b.id)).toBe(true);
    }
  });

  test('a lost reply on a claim does not count an attempt twice', async () => {
    const url = new URL(testInfra.mongoUri);
    const proxy = await startWireProxy({ host: url.hostname, port: Number(url.port || 27017) });
    // The driver's own retry off (on a replica set it would resend the claim, deduplicated by the server): this is
    // the claimant sending it again after a store outage.
    const viaProxy = await connectMongo({
      uri: `mongodb://127.0.0.1:${proxy.port}/?directConnection=true`,
      dbName: conn().name,
      adapter,
      retryWrites: false,
    });
    try {
      const Claimed = modelFor(viaProxy, 'Thing', schema, 'things');
      const { _id } = await Thing().create({ key: 'lost-reply' });
      // The claim as the worker makes it: conditioned on not already carrying this claimant's token.
      const token = 'job-1:worker-a';
      const claim = () =>
        Claimed.findOneAndUpdate(
          { _id, status: { $in: ['queued', 'running'] }, claim: { $ne: token } },
          { $set: { status: 'running', claim: token }, $inc: { n: 1 } },
          { returnDocument: 'after' },
        ).lean();
      const cut = proxy.cutNext('findAndModify', 'things', 'after-server');
      await expect(claim()).rejects.toThrow();
      await cut;
      // Sent again: it matches nothing, and the run is found carrying this claimant's token, counted once.
      expect(await claim()).toBeNull();
      const stored = await Thing().findById(_id).lean();
      expect(stored).toMatchObject({ status: 'running', claim: token, n: 1 });
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });
}
