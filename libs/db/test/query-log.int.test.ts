import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { connectMongo, modelFor, mongoose, QUERY_LOG_ENV, syncIndexes, type Connection } from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

/**
 * The query log of the index-discipline check records what each call asks of the indexes: its filter's shape, its
 * sort in order and direction (the driver sends a sort as a Map), the code that made the call, and the indexes the
 * model declares; through the adapter and in pass-through alike.
 */
const schema = new mongoose.Schema(
  { owner: { type: String, required: true }, at: { type: Date, required: true } },
  { versionKey: false },
);
schema.index({ owner: 1, at: -1, _id: -1 });

const dir = mkdtempSync(join(tmpdir(), 'query-log-'));
const conns: Connection[] = [];
const saved = process.env[QUERY_LOG_ENV];

beforeAll(() => {
  process.env[QUERY_LOG_ENV] = dir;
});
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  if (saved === undefined) delete process.env[QUERY_LOG_ENV];
  else process.env[QUERY_LOG_ENV] = saved;
  rmSync(dir, { recursive: true, force: true });
});

const lines = () =>
  readdirSync(dir).flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  );

it.each(['auto', 'pass-through'] as const)('records shapes, sorts and callers (%s)', async (adapter) => {
  const dbName = uniqueName('qlog');
  const conn = await connectMongo({ uri: testInfra.mongoUri, dbName, adapter });
  conns.push(conn);
  const Item = modelFor(conn, 'Item', schema, 'items');
  await syncIndexes(conn);
  await Item.create({ owner: 'a', at: new Date() });
  // A page (limit) and a whole sorted read: the adapter serves the first from PostgreSQL, the server the second.
  await Item.find({ owner: 'a', at: { $lt: new Date() } })
    .sort({ at: -1, _id: -1 })
    .limit(5)
    .lean();
  await Item.find({ owner: 'a' }).sort({ at: -1, _id: -1 }).lean();
  await Item.countDocuments({ owner: 'a' });

  const mine = lines().filter((l) => l.db === dbName);
  expect(mine).toEqual(
    expect.arrayContaining([
      { kind: 'index', db: dbName, collection: 'items', keys: [['_id', 1]] },
      {
        kind: 'index',
        db: dbName,
        collection: 'items',
        keys: [
          ['owner', 1],
          ['at', -1],
          ['_id', -1],
        ],
      },
    ]),
  );
  const sorted = mine.filter((l) => l.kind === 'query' && l.command === 'find' && l.sort);
  expect(sorted.map((l) => l.filter)).toEqual(expect.arrayContaining([{ owner: '=', at: ['$lt'] }, { owner: '=' }]));
  for (const l of sorted) {
    expect(l.sort).toEqual([
      ['at', -1],
      ['_id', -1],
    ]);
    expect(l.caller).toMatch(/^libs\/db\/test\/query-log\.int\.test\.ts:\d+$/);
  }
  expect(
    mine.some((l) => l.kind === 'query' && l.filter !== undefined && /count|aggregate/.test(String(l.command))),
  ).toBe(true);
});
