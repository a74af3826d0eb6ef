import { isDuplicateKeyError, modelFor, mongoose, syncIndexes } from '../src';
import { createTestDatabases, type TestDatabases } from '@platform/testing';

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
  const onInsert = await M.create({ name: 'a' }).then(() => null, (err: unknown) => err);
  const onUpdate = await M.findOneAndUpdate({ _id: other._id }, { $set: { name: 'a' } }).then(() => null, (err: unknown) => err);
  expect([isDuplicateKeyError(onInsert), isDuplicateKeyError(onUpdate)]).toEqual([true, true]);
  expect(isDuplicateKeyError(new Error('connection refused'))).toBe(false);
});
