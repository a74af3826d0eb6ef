import { createTestDatabases, type TestDatabases } from '@platform/testing';

import { insertEach, isDuplicateKeyError, modelFor, mongoose, syncIndexes } from '../src';

interface Doc {
  name: string;
}

let dbs: TestDatabases;
beforeAll(async () => {
  dbs = await createTestDatabases('dupkey');
});
afterAll(() => dbs.cleanup());

it('recognises a unique index refusing an insert and an update, on the real server', async () => {
  const schema = new mongoose.Schema<Doc>({ name: { type: String, required: true } });
  schema.index({ name: 1 }, { unique: true });
  const M = modelFor(dbs.conn, 'Dup', schema, 'dups');
  await syncIndexes(dbs.conn);
  await M.create({ name: 'a' });
  const other = await M.create({ name: 'b' });
  const onInsert = await M.create({ name: 'a' }).then(
    () => null,
    (err: unknown) => err,
  );
  const onUpdate = await M.findOneAndUpdate({ _id: other._id }, { $set: { name: 'a' } }).then(
    () => null,
    (err: unknown) => err,
  );
  expect([isDuplicateKeyError(onInsert), isDuplicateKeyError(onUpdate)]).toEqual([true, true]);
  expect(isDuplicateKeyError(new Error('connection refused'))).toBe(false);
});

it('insertEach writes a batch in one insert and refuses only the duplicates, each with its own error', async () => {
  const schema = new mongoose.Schema<Doc>({ name: { type: String, required: true } });
  schema.index({ name: 1 }, { unique: true });
  const M = modelFor(dbs.conn, 'DupBatch', schema, 'dup_batches');
  await syncIndexes(dbs.conn);
  await M.create({ name: 'taken' });
  const docs = ['x', 'taken', 'y', 'y', 'z'].map((name) => new M({ name }).toObject());
  const outcomes = await insertEach(M)(docs);
  expect(outcomes.map((o) => (o === null ? 'ok' : isDuplicateKeyError(o) ? 'duplicate' : o.message))).toEqual([
    'ok',
    'duplicate',
    'ok',
    'duplicate',
    'ok',
  ]);
  expect((await M.find({}, { name: 1, _id: 0 }).sort({ name: 1 }).lean()).map((d) => d.name)).toEqual([
    'taken',
    'x',
    'y',
    'z',
  ]);
});

it('insertEach fails the whole batch when the write itself fails', async () => {
  const schema = new mongoose.Schema<Doc>({ name: { type: String, required: true } });
  const conn = mongoose.createConnection('mongodb://127.0.0.1:9/none', {
    serverSelectionTimeoutMS: 300,
    bufferCommands: false,
  });
  const M = conn.model<Doc>('Unreachable', schema);
  await expect(insertEach(M)([{ name: 'a' }, { name: 'b' }])).rejects.toThrow();
  await conn.close();
});

it("syncIndexes creates every model's collection at start, before any write needs it", async () => {
  const fresh = dbs.conn.useDb(`${dbs.conn.name}_fresh`, { useCache: false });
  try {
    // Mongoose starts creating the collection as the model is compiled; what counts is that it exists once
    // syncIndexes has returned (asserting it absent before that raced that start).
    modelFor(fresh, 'Early', new mongoose.Schema({ name: String }), 'early_things');
    await syncIndexes(fresh);
    expect((await fresh.db!.listCollections({ name: 'early_things' }).toArray()).length).toBe(1);
  } finally {
    await fresh.dropDatabase();
  }
});
