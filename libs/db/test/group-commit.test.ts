import mongoose, { type Model } from 'mongoose';

import { isUnavailableError } from '@platform/errors';

import { isDuplicateKeyError } from '../src/duplicate-key';
import { createGroupCommit, insertEach, perConnection } from '../src/group-commit';

/** A write whose batches stay open until `release` is called; records each batch. */
function gatedWrite() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const write = (items: number[]) =>
    new Promise<(Error | null)[]>((resolve) => {
      batches.push(items);
      gates.push(() => resolve(items.map((n) => (n < 0 ? new Error(`refused ${n}`) : null))));
    });
  const release = () => gates.splice(0).forEach((g) => g());
  return { batches, write, release };
}

const flush = () => new Promise((r) => setImmediate(r));

it('writes an item at once while a batch slot is free, with no timer', async () => {
  const w = gatedWrite();
  const commit = createGroupCommit(w.write, { maxParallel: 2 });
  const a = commit.add(1);
  expect(w.batches).toEqual([[1]]);
  w.release();
  await a;
  await flush();
  expect(commit.load).toEqual({ inFlight: 0, waiting: 0 });
});

it('gathers the items that arrive while every slot is busy into one batch, up to maxBatch', async () => {
  const w = gatedWrite();
  const commit = createGroupCommit(w.write, { maxParallel: 1, maxBatch: 3 });
  const done = [1, 2, 3, 4, 5, 6].map((n) => commit.add(n));
  expect(w.batches).toEqual([[1]]);
  expect(commit.load).toEqual({ inFlight: 1, waiting: 5 });
  w.release();
  await flush();
  expect(w.batches).toEqual([[1], [2, 3, 4]]);
  w.release();
  await flush();
  expect(w.batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  w.release();
  await Promise.all(done);
});

it('writes the items of addAll in one batch while a slot is free, not the first alone', async () => {
  const w = gatedWrite();
  const commit = createGroupCommit(w.write, { maxParallel: 4 });
  const both = commit.addAll([1, 2]);
  expect(w.batches).toEqual([[1, 2]]);
  w.release();
  await expect(both).resolves.toEqual([null, null]);
  await expect(commit.addAll([])).resolves.toEqual([]);
  expect(w.batches).toEqual([[1, 2]]);
});

it('gives each item its own outcome, and fails a whole batch when the write throws', async () => {
  const w = gatedWrite();
  const commit = createGroupCommit(w.write, { maxParallel: 1 });
  const first = commit.add(1);
  const good = commit.add(2);
  const bad = commit.add(-3);
  w.release();
  await first;
  await flush();
  w.release();
  await expect(good).resolves.toBeNull();
  await expect(bad).rejects.toThrow('refused -3');

  const failing = createGroupCommit<number>(() => Promise.reject(new Error('store unreachable')));
  await expect(Promise.all([failing.add(1), failing.add(2)])).rejects.toThrow('store unreachable');
  expect(failing.load).toEqual({ inFlight: 0, waiting: 0 });
});

it('with gatherMs, waits that long for company before writing, then writes what waited meanwhile at once', async () => {
  const w = gatedWrite();
  // The gathering window is long beside the 10 ms the test waits in it, so a loaded machine cannot close it early.
  const commit = createGroupCommit(w.write, { maxParallel: 1, gatherMs: 300 });
  const started = Date.now();
  const first = [1, 2].map((n) => commit.add(n));
  expect(w.batches).toEqual([]); // gathering
  await new Promise((r) => setTimeout(r, 10));
  const third = commit.add(3);
  if (Date.now() - started < 250) expect(w.batches).toEqual([]);
  while (w.batches.length === 0 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 10));
  expect(Date.now() - started).toBeGreaterThanOrEqual(290); // it waited the window out
  expect(w.batches).toEqual([[1, 2, 3]]);
  const fourth = commit.add(4); // a batch is in flight: waits for it, not for a timer
  w.release();
  await Promise.all([...first, third]);
  await flush();
  expect(w.batches).toEqual([[1, 2, 3], [4]]);
  w.release();
  await fourth;
});

it('with gatherMs, a full batch is written without waiting', async () => {
  const w = gatedWrite();
  const commit = createGroupCommit(w.write, { maxParallel: 1, maxBatch: 3, gatherMs: 10_000 });
  const done = [1, 2, 3].map((n) => commit.add(n));
  expect(w.batches).toEqual([[1, 2, 3]]);
  w.release();
  await Promise.all(done);
});

it('insertEach: a document refused because the store went away mid-batch is unavailable (503), a duplicate stays one', async () => {
  // The shape of FerretDB's answer when PostgreSQL stops during an unordered insert: per-document write errors
  // carrying the store's connection failure, beside a document refused on its own.
  const bulk = Object.assign(new Error('write failed'), {
    name: 'MongoBulkWriteError',
    writeErrors: [
      {
        index: 0,
        code: 1,
        errmsg: 'failed to connect to `host=127.0.0.1 user=postgres database=ferretdb`: dial error',
      },
      { index: 2, code: 11000, errmsg: 'E11000 duplicate key error collection: executions' },
    ],
  });
  const model = {
    collection: {
      insertMany: () => Promise.reject(bulk),
    },
  } as unknown as Model<unknown>;
  const [down, written, duplicate] = await insertEach(model)([{}, {}, {}]);
  expect(down).toBeInstanceOf(Error);
  expect(isUnavailableError(down)).toBe(true);
  expect(isDuplicateKeyError(down)).toBe(false);
  expect(written).toBeNull();
  expect(isDuplicateKeyError(duplicate)).toBe(true);
  expect(isUnavailableError(duplicate)).toBe(false);
});

it('perConnection makes one value per connection, on first use, and hands the same one back after', () => {
  const made: mongoose.Connection[] = [];
  const valueFor = perConnection((conn) => {
    made.push(conn);
    return { conn };
  });
  // Connections never opened: only their identity matters here.
  const a = mongoose.createConnection();
  const b = mongoose.createConnection();
  expect(made).toEqual([]);
  const first = valueFor(a);
  expect(valueFor(a)).toBe(first);
  expect(valueFor(b)).not.toBe(first);
  expect(valueFor(b).conn).toBe(b);
  expect(made).toEqual([a, b]);
});
