/**
 * The development store as the scripts start it (scripts/lib.sh: `ferretdb_pg_url`, used by infra.sh and
 * store-server.sh) keeps answering under many concurrent writes. FerretDB 1.24 holds the PostgreSQL connection of an
 * update's read while it takes a second one for the write; with its default pool of 50, 100 concurrent
 * single-document updates left it holding all 50 and answering nothing, for good (a CI run lost its chaos and any-date
 * phases to that). The scripts give it a pool of 400 and PostgreSQL room for it; here 150 connections each update a
 * document of their own as fast as they can while 40 collections are created (the other load that was seen to hang
 * it, the same deadlock: with the default pool it hung as soon as the updates did), and the server must keep
 * answering, count every update and hold every new collection with its index.
 */
import { mongoose } from '@platform/db';
import { privateStore, type PrivateStore } from '@platform/testing';

jest.setTimeout(90_000);

/** More concurrent writers than FerretDB's default pool (50) holds twice over. */
const WRITERS = 150;
const BURST_MS = 8_000;
/** Collections created (first insert, then an index) during the burst. */
const CREATED = 40;
/** A write or ping that takes longer than this counts as not answered. */
const ANSWER_MS = 20_000;

let store: PrivateStore;

beforeAll(async () => {
  store = await privateStore();
});

afterAll(async () => {
  await store?.dispose();
});

const client = (maxPoolSize: number) =>
  new mongoose.mongo.MongoClient(store.uri, {
    directConnection: true,
    maxPoolSize,
    minPoolSize: maxPoolSize,
    serverSelectionTimeoutMS: ANSWER_MS,
    socketTimeoutMS: ANSWER_MS,
  });

test(`${WRITERS} connections updating at once while ${CREATED} collections are created: every update is answered and counted, and a ping stays answered`, async () => {
  const writers = client(WRITERS);
  const pinger = client(1);
  try {
    const coll = writers.db('pool').collection<{ _id: number; n: number }>('counters');
    await coll.insertMany(Array.from({ length: WRITERS }, (_, i) => ({ _id: i, n: 0 })));
    const done = new Array<number>(WRITERS).fill(0);
    const until = Date.now() + BURST_MS;
    const burst = Promise.all(
      done.map(async (_, i) => {
        while (Date.now() < until) {
          await coll.updateOne({ _id: i }, { $inc: { n: 1 } });
          done[i] = (done[i] ?? 0) + 1;
        }
      }),
    );
    const pings: number[] = [];
    const pinging = (async () => {
      while (Date.now() < until) {
        const t0 = Date.now();
        await pinger.db('admin').command({ ping: 1 });
        pings.push(Date.now() - t0);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const creating = (async () => {
      await new Promise((r) => setTimeout(r, 1_000));
      await Promise.all(
        Array.from({ length: CREATED }, async (_, k) => {
          const created = writers.db('pool').collection(`created_${k}`);
          await created.insertOne({ k, at: new Date() });
          await created.createIndex({ k: 1, at: -1 });
        }),
      );
    })();
    await Promise.all([burst, pinging, creating]);

    expect(pings.length).toBeGreaterThan(0);
    expect(Math.max(...pings)).toBeLessThan(ANSWER_MS);
    // Each writer reached the server more than once, and each document holds exactly its writer's updates.
    expect(Math.min(...done)).toBeGreaterThan(1);
    const stored = await coll.find({}).toArray();
    expect(stored.map((d) => [d._id, d.n]).sort((a, b) => a[0]! - b[0]!)).toEqual(done.map((n, i) => [i, n]));
    for (let k = 0; k < CREATED; k++) {
      const created = pinger.db('pool').collection(`created_${k}`);
      expect(await created.find({}, { projection: { _id: 0, k: 1 } }).toArray()).toEqual([{ k }]);
      expect((await created.indexes()).map((i) => i.name)).toContain('k_1_at_-1');
    }
  } finally {
    await Promise.all([writers.close(true), pinger.close(true)]);
  }
});
