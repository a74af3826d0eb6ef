import {
  atomicStrategy,
  atomicUpdateEach,
  atomicUpdateOne,
  connectMongo,
  modelFor,
  mongoose,
  releaseLease,
  updateUnderLease,
  type Connection,
} from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

// atomicUpdateEach and leases on the real server: every update atomic per document however the items are batched,
// commands shared by the batch, and no read of the collection by `_id: {$in}` unless scoped by an indexed equality.
interface Run {
  batch: string;
  status: string;
  n: number;
}

const schema = new mongoose.Schema<Run>({ batch: String, status: String, n: { type: Number, default: 0 } });
schema.index({ batch: 1 });

let conn: Connection;
const commands: { name: string; command: Record<string, unknown> }[] = [];
const Run = () => modelFor(conn, 'Run', schema, 'runs');
const claims = () => conn.collection('_revision_claims');

beforeAll(async () => {
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('atomiceach'), monitorCommands: true });
  conn
    .getClient()
    .on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) =>
      commands.push({ name: e.commandName, command: e.command as Record<string, unknown> }),
    );
  await Run().init();
  await conn.createCollection('_revision_claims').catch(() => undefined);
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

async function seed(batch: string, n: number, status = 'queued'): Promise<mongoose.Types.ObjectId[]> {
  const docs = Array.from({ length: n }, () => ({ _id: new mongoose.Types.ObjectId(), batch, status, n: 0 }));
  await Run().collection.insertMany(docs);
  return docs.map((d) => d._id);
}

/** The revision an update left its document at (the lease it holds, with `hold`). */
const revOf = (d: unknown): number => (d as { _rev: number })._rev;

const start = (ids: mongoose.Types.ObjectId[], batch?: string) =>
  ids.map((id) => ({
    id,
    near: batch ? { batch } : undefined,
    filter: { status: 'queued' },
    update: { $set: { status: 'running' }, $inc: { n: 1 } },
  }));

test('updates each document whose filter matches, null for the others and for missing ones', async () => {
  const ids = await seed('b1', 6);
  await Run().updateOne({ _id: ids[5] }, { $set: { status: 'done' } });
  const missing = new mongoose.Types.ObjectId();
  const out = await atomicUpdateEach(Run(), [...start(ids, 'b1'), ...start([missing], 'b1')]);
  expect(out.slice(0, 5).map((d) => (d as Run).status)).toEqual(Array(5).fill('running'));
  expect(out[5]).toBeNull();
  expect(out[6]).toBeNull();
  const stored = await Run().find({ batch: 'b1' }).lean();
  expect(stored.map((d) => d.n).sort()).toEqual([0, 1, 1, 1, 1, 1]);
});

test('a batch of one scope is a handful of commands, and never reads `_id: {$in}` unscoped', async () => {
  const ids = await seed('b2', 32);
  commands.length = 0;
  const out = await atomicUpdateEach(Run(), start(ids, 'b2'));
  expect(out.every((d) => (d as Run).status === 'running')).toBe(true);
  const onRuns = commands.filter((c) => c.command[c.name] === 'runs');
  // One read of the revisions, one updateMany, one read back (claims: one insert, their release in the background).
  if ((await atomicStrategy(conn)) === 'claims') expect(onRuns.map((c) => c.name)).toEqual(['find', 'update', 'find']);
  else expect(onRuns.length).toBe(32);
  for (const c of onRuns) {
    const filter = (c.command.filter ?? (c.command.updates as { q: unknown }[] | undefined)?.[0]?.q) as
      Record<string, unknown> | undefined;
    if (filter && typeof filter._id === 'object' && filter._id !== null && '$in' in filter._id)
      expect(filter.batch).toBe('b2');
  }
});

test('a known revision is tried without a read; a wrong guess falls back to reading it', async () => {
  const ids = await seed('b3', 4);
  await Run().updateOne({ _id: ids[0] }, { $set: { _rev: 3 } }, { strict: false });
  const out = await atomicUpdateEach(
    Run(),
    start(ids, 'b3').map((it) => ({ ...it, rev: 0 })),
  );
  expect(out.map((d) => (d as Run).n)).toEqual([1, 1, 1, 1]);
});

test('concurrent batches and single updates of the same documents lose no increment', async () => {
  const ids = await seed('b4', 10);
  const bump = ids.map((id) => ({ id, near: { batch: 'b4' }, filter: {}, update: { $inc: { n: 1 } } }));
  const outs = await Promise.all([
    ...Array.from({ length: 4 }, () => atomicUpdateEach(Run(), bump)),
    ...ids.map((id) => atomicUpdateOne(Run(), { _id: id }, { $inc: { n: 1 } }).then((d) => [d])),
    atomicUpdateEach(
      Run(),
      ids.map((id) => ({ id, filter: {}, update: { $inc: { n: 1 } } })),
    ),
  ]);
  expect(outs.flat().filter((o) => o === null || o instanceof Error)).toEqual([]);
  const stored = await Run().find({ batch: 'b4' }).lean();
  expect(stored.map((d) => d.n)).toEqual(Array(10).fill(6));
});

test('concurrent conditional batches move each document once', async () => {
  const ids = await seed('b5', 12);
  const outs = await Promise.all(Array.from({ length: 3 }, () => atomicUpdateEach(Run(), start(ids, 'b5'))));
  for (let k = 0; k < ids.length; k++) expect(outs.filter((o) => o[k] !== null).length).toBe(1);
  expect((await Run().find({ batch: 'b5' }).lean()).map((d) => d.n)).toEqual(Array(12).fill(1));
});

test('a held lease lets its holder write once and keeps other writers out until it is released', async () => {
  if ((await atomicStrategy(conn)) === 'native') return void expect(await atomicStrategy(conn)).toBe('native');
  const [id] = await seed('b6', 1);
  const [held] = await atomicUpdateEach(Run(), start([id!], 'b6'), { hold: true });
  const rev = revOf(held);
  // Another writer cannot take the document while the lease is held.
  await expect(atomicUpdateOne(Run(), { _id: id }, { $inc: { n: 10 } }, { attempts: 3 })).rejects.toThrow(
    'kept conflicting',
  );
  const done = await updateUnderLease(Run(), id, rev, { status: 'running' }, { $set: { status: 'done' } });
  expect(done).toMatchObject({ status: 'done', n: 1 });
  // The holder's write moved the document on: the next writer needs no release.
  await expect(atomicUpdateOne(Run(), { _id: id }, { $inc: { n: 10 } }, { attempts: 3 })).resolves.toMatchObject({
    n: 11,
  });
  // A lease given up without writing frees the document at once.
  const [again] = await atomicUpdateEach(Run(), [{ id: id!, filter: {}, update: { $inc: { n: 1 } } }], { hold: true });
  await releaseLease(Run(), id, revOf(again));
  await expect(atomicUpdateOne(Run(), { _id: id }, { $inc: { n: 1 } }, { attempts: 3 })).resolves.toMatchObject({
    n: 13,
  });
});

test('a lease left by a dead holder is taken once it is stale', async () => {
  if ((await atomicStrategy(conn)) === 'native') return void expect(await atomicStrategy(conn)).toBe('native');
  const [id] = await seed('b7', 1);
  const [held] = await atomicUpdateEach(Run(), start([id!], 'b7'), { hold: true });
  const lease = `runs:${String(id)}:${revOf(held)}`;
  await claims().updateOne({ _id: lease as never }, { $set: { at: new Date(Date.now() - 60_000) } });
  await expect(atomicUpdateOne(Run(), { _id: id }, { $set: { status: 'queued' } })).resolves.toMatchObject({
    status: 'queued',
  });
  // The dead holder's late write finds the document moved on and writes nothing.
  expect(
    await updateUnderLease(Run(), id, revOf(held), { status: 'running' }, { $set: { status: 'done' } }),
  ).toBeNull();
  expect(await Run().findById(id).lean()).toMatchObject({ status: 'queued' });
});

test('claims of updated documents are gone shortly after (released in the background)', async () => {
  const ids = await seed('b8', 8);
  await atomicUpdateEach(Run(), start(ids, 'b8'));
  const prefix = ids.map((id) => `runs:${String(id)}:`);
  const left = async () =>
    (await claims().find({}).toArray()).filter((c) => prefix.some((p) => String(c._id).startsWith(p))).length;
  const deadline = Date.now() + 5_000;
  while ((await left()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(await left()).toBe(0);
});
