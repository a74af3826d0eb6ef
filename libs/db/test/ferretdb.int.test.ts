import { atomicUpdateOne, connectMongo, createSequence, modelFor, mongoose, type Connection } from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

// Proves the database server (FerretDB locally, MongoDB in production) serves what the platform relies on.
interface Thing {
  name: string;
  owner: string;
  n: number;
  tags: string[];
}

const schema = new mongoose.Schema<Thing>({
  name: { type: String, required: true },
  owner: { type: String, required: true },
  n: { type: Number, default: 0 },
  tags: { type: [String], default: [] },
});
schema.index({ owner: 1, name: 1 }, { unique: true });

let conn: Connection;
const Thing = () => modelFor(conn, 'Thing', schema, 'things');

beforeAll(async () => {
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('dbproof') });
  await Thing().init();
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

test('CRUD round trip', async () => {
  const created = await Thing().create({ name: 'a', owner: 'u1' });
  const read = await Thing().findById(created._id).lean();
  expect(read).toMatchObject({ name: 'a', owner: 'u1', n: 0 });
  await Thing().updateOne({ _id: created._id }, { $set: { n: 5 }, $push: { tags: 'x' } });
  expect(await Thing().findById(created._id).lean()).toMatchObject({ n: 5, tags: ['x'] });
  await Thing().deleteOne({ _id: created._id });
  expect(await Thing().findById(created._id).lean()).toBeNull();
});

test('a unique index rejects a duplicate with code 11000', async () => {
  await Thing().create({ name: 'dup', owner: 'u1' });
  await expect(Thing().create({ name: 'dup', owner: 'u1' })).rejects.toMatchObject({ code: 11000 });
  await expect(Thing().create({ name: 'dup', owner: 'u2' })).resolves.toBeDefined();
});

test('countDocuments with a filter, sort/skip/limit', async () => {
  await Thing().insertMany([1, 2, 3, 4, 5].map((i) => ({ name: `c${i}`, owner: 'counter', n: i })));
  expect(await Thing().countDocuments({ owner: 'counter' })).toBe(5);
  expect(await Thing().countDocuments({ owner: 'counter', n: { $gte: 3 } })).toBe(3);
  const page = await Thing().find({ owner: 'counter' }).sort({ n: -1 }).skip(1).limit(2).lean();
  expect(page.map((t) => t.n)).toEqual([4, 3]);
});

test('findOneAndUpdate: conditional update, upsert, $inc', async () => {
  await Thing().create({ name: 'f', owner: 'u3', n: 1 });
  const miss = await Thing()
    .findOneAndUpdate({ name: 'f', owner: 'u3', n: 99 }, { $set: { n: 2 } }, { returnDocument: 'after' })
    .lean();
  expect(miss).toBeNull();
  const hit = await Thing()
    .findOneAndUpdate({ name: 'f', owner: 'u3', n: 1 }, { $inc: { n: 10 } }, { returnDocument: 'after' })
    .lean();
  expect(hit?.n).toBe(11);
  const up = await Thing()
    .findOneAndUpdate(
      { name: 'new', owner: 'u3' },
      { $setOnInsert: { n: 7 } },
      { upsert: true, returnDocument: 'after' },
    )
    .lean();
  expect(up?.n).toBe(7);
});

test('an integer sequence is atomic under concurrency', async () => {
  const next = createSequence(conn, 'proof');
  const values = await Promise.all(Array.from({ length: 20 }, () => next()));
  expect(new Set(values).size).toBe(20);
  expect(Math.min(...values)).toBe(1);
  expect(Math.max(...values)).toBe(20);
});

test('concurrent inserts into a unique index: exactly one succeeds', async () => {
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, () => Thing().create({ name: 'race', owner: 'u9' })),
  );
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  expect(await Thing().countDocuments({ name: 'race', owner: 'u9' })).toBe(1);
});

test('atomicUpdateOne: concurrent conditional updates change the document exactly once', async () => {
  for (let round = 0; round < 3; round++) {
    const t = await Thing().create({ name: `cond${round}`, owner: 'u4', n: 0 });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => atomicUpdateOne(Thing(), { _id: t._id, n: 0 }, { $set: { n: i + 1 } })),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const stored = await Thing().findById(t._id).lean();
    expect(stored?.n).toBe(winners[0]?.n);
  }
});

test('atomicUpdateOne: concurrent $inc loses no increment', async () => {
  const t = await Thing().create({ name: 'inc', owner: 'u5', n: 0 });
  await Promise.all(Array.from({ length: 25 }, () => atomicUpdateOne(Thing(), { _id: t._id }, { $inc: { n: 1 } })));
  expect((await Thing().findById(t._id).lean())?.n).toBe(25);
});

test('atomicUpdateOne leaves no revision claims behind (they are released after each write)', async () => {
  const doc = await Thing().create({ name: 'claims', owner: 'claims' });
  await Promise.all(Array.from({ length: 20 }, () => atomicUpdateOne(Thing(), { _id: doc._id }, { $inc: { n: 1 } })));
  expect((await Thing().findById(doc._id).lean())?.n).toBe(20);
  expect(
    await conn
      .db!.collection('_revision_claims')
      .countDocuments({ _id: { $regex: `^things:${String(doc._id)}:` } } as Record<string, unknown>),
  ).toBe(0);
});

test('atomicUpdateOne returns null when nothing matches', async () => {
  expect(await atomicUpdateOne(Thing(), { name: 'nobody' }, { $set: { n: 1 } })).toBeNull();
});
