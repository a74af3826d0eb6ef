import { connectMongo, modelFor, mongoose, syncIndexes, type Connection } from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

/**
 * Reads through libs/db answer exactly what the server answers to the same call made directly (pass-through): on
 * FerretDB the adapter serves pages, counts and non-equality lookups from its PostgreSQL, and must agree with
 * FerretDB's own evaluation on every filter, sort, skip, limit and projection below; on MongoDB both are the driver.
 */
const schema = new mongoose.Schema(
  {
    owner: { type: String, required: true },
    status: { type: String, required: true },
    n: { type: Number, default: null },
    at: { type: Date, default: null },
    flag: { type: Boolean, default: null },
    ref: { type: mongoose.Schema.Types.ObjectId, default: null },
    tags: { type: [String], default: [] },
    nested: { type: new mongoose.Schema({ a: Number, b: [Number] }, { _id: false }), default: null },
    blob: { type: Buffer, default: null },
    free: mongoose.Schema.Types.Mixed,
  },
  { versionKey: false, minimize: false },
);
schema.index({ owner: 1, status: 1, at: -1, _id: -1 });

let adapted: Connection;
let direct: Connection;
const dbName = uniqueName('reads');
const A = () => modelFor(adapted, 'Item', schema, 'items');
const D = () => modelFor(direct, 'Item', schema, 'items');
const base = Date.now() - 10 * 86_400_000;
const refs = Array.from({ length: 4 }, () => new mongoose.Types.ObjectId());

beforeAll(async () => {
  adapted = await connectMongo({ uri: testInfra.mongoUri, dbName });
  direct = await connectMongo({ uri: testInfra.mongoUri, dbName, adapter: 'pass-through' });
  A();
  await syncIndexes(adapted);
  const docs = Array.from({ length: 300 }, (_, i) => ({
    owner: `o${i % 3}`,
    status: ['queued', 'running', 'succeeded', 'failed'][i % 4]!,
    n: i % 7 === 0 ? null : (i * 37) % 101,
    at: i % 11 === 0 ? null : new Date(base + ((i * 7919) % 300) * 60_000),
    flag: i % 5 === 0 ? null : i % 2 === 0,
    ref: i % 6 === 0 ? null : refs[i % 4],
    tags: i % 9 === 0 ? [] : [`t${i % 4}`, 'all'],
    nested: i % 4 === 0 ? null : { a: i, b: [i, i + 1] },
    blob: i % 10 === 0 ? Buffer.from([i % 256, 1, 2]) : null,
    free: i % 8 === 0 ? { deep: { x: [1, 'two', null] } } : i,
  }));
  await A().insertMany(docs);
  // Documents written before a field existed (no `n`, no `at`): missing, not null.
  await A().collection.insertMany([
    { owner: 'o1', status: 'queued' },
    { owner: 'o2', status: 'failed', flag: true },
  ]);
});
afterAll(async () => {
  await adapted.dropDatabase();
  await Promise.all([adapted.close(), direct.close()]);
});

const at = (min: number) => new Date(base + min * 60_000);
const filters: Record<string, unknown>[] = [
  {},
  { owner: 'o1' },
  { owner: 'o1', status: { $in: ['queued', 'failed'] } },
  { owner: 'o2', status: { $in: ['queued', 'running', 'succeeded', 'failed'] }, at: { $gte: at(50), $lt: at(200) } },
  { n: { $gt: 20, $lte: 80 } },
  { n: null },
  { n: { $ne: null } },
  { n: { $ne: 37 } },
  { at: { $exists: false } },
  { flag: true },
  { flag: { $in: [false, null] } },
  { ref: refs[1] },
  { ref: { $in: [refs[2], refs[3]] } },
  {
    $or: [
      { owner: 'o0', n: { $lt: 10 } },
      { status: 'running', flag: false },
    ],
  },
  { owner: 'o0', $and: [{ at: { $gt: at(10) } }, { at: { $lt: at(250) } }] },
  { _id: { $gt: new mongoose.Types.ObjectId('000000000000000000000000') }, status: 'succeeded' },
  { tags: 't1' },
  { 'nested.a': { $gt: 100 } },
  { status: { $in: [] } },
];
const sorts: Record<string, 1 | -1>[] = [
  { at: -1, _id: -1 },
  { n: 1, _id: 1 },
  { ref: 1, _id: -1 },
  { flag: -1, n: 1, _id: 1 },
];
const pages = [
  { skip: 0, limit: 50 },
  { skip: 7, limit: 3 },
  { skip: 280, limit: 50 },
];

test('pages: every filter, sort, skip and limit answers as the server itself does', async () => {
  for (const f of filters)
    for (const sort of sorts)
      for (const p of pages) {
        const [got, want] = await Promise.all(
          [A(), D()].map((M) => M.find(f).sort(sort).skip(p.skip).limit(p.limit).lean()),
        );
        expect({ f, sort, p, got: got!.map((d) => String(d._id)) }).toEqual({
          f,
          sort,
          p,
          got: want!.map((d) => String(d._id)),
        });
        expect({ f, sort, p, got }).toEqual({ f, sort, p, got: want });
      }
});

test('counts, lookups and projections answer as the server itself does', async () => {
  for (const f of filters) {
    const [got, want] = await Promise.all([A(), D()].map((M) => M.countDocuments(f)));
    expect({ f, got }).toEqual({ f, got: want });
    const [one, oneWant] = await Promise.all([A(), D()].map((M) => M.findOne(f).sort({ n: -1, _id: 1 }).lean()));
    expect({ f, one }).toEqual({ f, one: oneWant });
    const [ex, exWant] = await Promise.all([A(), D()].map((M) => M.exists(f)));
    expect({ f, exists: ex !== null }).toEqual({ f, exists: exWant !== null });
  }
  for (const projection of [{ owner: 1, n: 1 }, { owner: 1, _id: 0 }, { free: 0, blob: 0 }, { at: 1 }]) {
    const [got, want] = await Promise.all(
      [A(), D()].map((M) => M.find({ owner: 'o2' }, projection).sort({ _id: 1 }).limit(20).lean()),
    );
    expect({ projection, got }).toEqual({ projection, got: want });
  }
});

test('a cursor over a page iterates what the page holds', async () => {
  const ids: string[] = [];
  for await (const d of A().find({ owner: 'o0' }).sort({ _id: 1 }).limit(30).lean().cursor()) ids.push(String(d._id));
  const want = (await D().find({ owner: 'o0' }).sort({ _id: 1 }).limit(30).lean()).map((d) => String(d._id));
  expect(ids).toEqual(want);
});
