import { ConfigError, loadConfig } from '@platform/config';
import { connectMongo, mongoose, newObjectId, type Connection } from '@platform/db';
import {
  BUCKET_SIZE,
  bucketSummaryModel,
  createExecutionRepository,
  createExecutionRetention,
  seriesKeyOf,
  seriesRootModel,
  type ExecutionRecord,
  type ExecutionRepository,
  type ExecutionRetentionDeps,
} from '@platform/scheduling';
import { captureLogger, createTestDatabases, testInfra, type TestDatabases } from '@platform/testing';

import { configSchema } from '../src/config';

// Execution retention on the real store: ended runs older than EXECUTION_RETENTION_DAYS go, younger ones and runs
// not ended stay, and every list and count (totals, status and time filters, pages) is exact before and after.
// Instants come from an injected clock derived from now; nothing depends on the date the test runs.

const DAY = 24 * 3600_000;
const MIN = 60_000;
const HOUR = 3_600_000;
const owner = { user_id: 'keeper', org_id: 'acme' };
const ok = { success: true, response_status: 200, response_output: 'ok', error_message: null };
const bad = { success: false, response_status: 500, response_output: null, error_message: 'boom' };

let dbs: TestDatabases;
let conn: Connection;
let repo: ExecutionRepository;
let T0: number;
const clock = () => new Date(T0);
const deleteCommands: { ids: number }[] = [];

beforeEach(async () => {
  dbs = await createTestDatabases('retain', undefined, { monitorCommands: true });
  conn = dbs.conn;
  conn.getClient().on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => {
    if (e.commandName !== 'delete' || e.command.delete !== 'executions') return;
    for (const d of e.command.deletes as { q: { _id?: { $in?: unknown[] } } }[])
      deleteCommands.push({ ids: d.q._id?.$in?.length ?? Infinity });
  });
  deleteCommands.length = 0;
  repo = createExecutionRepository(conn);
  await repo.init();
  T0 = Date.now();
}, 60_000);
afterEach(() => dbs.cleanup(), 30_000);

function retention(over: Partial<ExecutionRetentionDeps> = {}) {
  return createExecutionRetention({
    conn,
    retentionDays: 30,
    clock,
    logger: captureLogger('scheduler').logger,
    pauseMs: 0,
    ...over,
  });
}

/** A webhook run triggered at `at`, ended (failed when `fail`), or left queued. */
async function run(webhookId: string, at: number, end: 'ok' | 'fail' | 'queued' = 'ok'): Promise<ExecutionRecord> {
  const r = await repo.create(
    { kind: 'webhook', webhook_id: webhookId, agent_id: '7', ...owner, payload: { at }, max_attempts: 1 },
    new Date(at),
  );
  if (end === 'queued') return r;
  await repo.claim(r.id, new Date(at));
  return (await repo.finish(r.id, 1, end === 'fail' ? bad : ok, new Date(at), new Date(at)))!;
}

const list = (webhook_id: string, q: Partial<Parameters<ExecutionRepository['list']>[1]> = {}) =>
  repo.list(owner, { webhook_id, skip: 0, limit: 100, ...q });

/** What a list must answer: `runs` (oldest first) filtered, newest first, paged. */
function expected(runs: ExecutionRecord[], keep: (r: ExecutionRecord) => boolean, skip = 0, limit = 100) {
  const all = runs.filter(keep).reverse();
  return { ids: all.slice(skip, skip + limit).map((r) => r.id), total: all.length };
}

async function expectLists(webhookId: string, runs: ExecutionRecord[]): Promise<void> {
  const cases: [Partial<Parameters<ExecutionRepository['list']>[1]>, (r: ExecutionRecord) => boolean][] = [
    [{}, () => true],
    [{ skip: 7, limit: 9 }, () => true],
    [{ success: false }, (r) => r.status === 'failed'],
    [{ statuses: ['succeeded'] }, (r) => r.status === 'succeeded'],
    [{ statuses: ['queued'] }, (r) => r.status === 'queued'],
    [
      { from: new Date(T0 - 35 * DAY), to: new Date(T0 - 5 * DAY) },
      (r) => Date.parse(r.triggered_at) >= T0 - 35 * DAY && Date.parse(r.triggered_at) < T0 - 5 * DAY,
    ],
  ];
  for (const [q, keep] of cases) {
    const page = await list(webhookId, q);
    const want = expected(runs, keep, q.skip, q.limit);
    expect({ q, ids: page.items.map((i) => i.id), total: page.total }).toEqual({ q, ...want });
  }
}

const isOld = (r: ExecutionRecord) => Date.parse(r.triggered_at) < T0 - 30 * DAY;
const ended = (r: ExecutionRecord) => r.status !== 'queued' && r.status !== 'running';

it('removes ended runs older than the window, keeps younger and unended ones; lists and counts exact', async () => {
  const webhook = newObjectId();
  const other = newObjectId();
  const runs: ExecutionRecord[] = [];
  // 63 old runs (one left queued), then 45 young ones: old and young share a bucket (positions 50..74).
  for (let i = 0; i < 63; i++)
    runs.push(await run(webhook, T0 - 45 * DAY + i * 7 * MIN, i === 55 ? 'queued' : i % 4 === 0 ? 'fail' : 'ok'));
  for (let i = 0; i < 45; i++) runs.push(await run(webhook, T0 - 20 * DAY + i * 5 * MIN, i % 5 === 0 ? 'fail' : 'ok'));
  const others: ExecutionRecord[] = [];
  for (let i = 0; i < 30; i++) others.push(await run(other, T0 - 40 * DAY + i * MIN));
  await repo.fill(owner, webhook);
  await repo.fill(owner, other);
  await expectLists(webhook, runs);

  const report = await retention().sweep();
  expect(report).toMatchObject({ ran: true, removed: 62 + 30 });
  const kept = runs.filter((r) => !isOld(r) || !ended(r));
  expect(kept).toHaveLength(46);
  await expectLists(webhook, kept);
  expect(await list(other)).toEqual({ items: [], total: 0 });
  expect(await repo.get(runs[0]!.id)).toBeNull();
  expect(await repo.get(runs[55]!.id)).not.toBeNull(); // not ended: the outbox's
  expect((await repo.get(runs.at(-1)!.id))?.id).toBe(runs.at(-1)!.id);

  // The bottom buckets, wholly removed, went with their tombstones and summaries; what stays is bounded.
  const series = seriesKeyOf(owner, webhook);
  const root = await seriesRootModel(conn).findById(series).lean();
  expect(root?.base).toBe(2); // buckets 0 and 1 (positions 0..49) were all old
  const docs = await conn.collection('executions').countDocuments({ series });
  expect(docs).toBeLessThanOrEqual(kept.length + 3 * BUCKET_SIZE);
  const otherSeries = seriesKeyOf(owner, other);
  const otherRoot = await seriesRootModel(conn).findById(otherSeries).lean();
  expect(otherRoot?.base ?? 0).toBe(otherRoot?.filled);
  expect(await bucketSummaryModel(conn).countDocuments({ series: otherSeries })).toBe(0);

  // The list goes on: new runs take new positions, buckets fill, counts stay exact.
  for (let i = 0; i < 60; i++) kept.push(await run(webhook, T0 - DAY + i * MIN, i % 3 === 0 ? 'fail' : 'ok'));
  await repo.fill(owner, webhook);
  await expectLists(webhook, kept);

  // Later, the rest of the window passes: the young runs go too, and a second sweep finds nothing new before that.
  expect((await retention().sweep()).removed).toBe(0);
  // The run that had not ended ends (the outbox gives up on it): its minute is looked at again.
  const abandoned = await repo.abandon(runs[55]!.id, 'gave up', new Date(T0));
  kept[kept.findIndex((r) => r.id === abandoned!.id)] = abandoned!;
  T0 += 25 * DAY;
  const later = await retention().sweep();
  expect(later.removed).toBe(46);
  const left = kept.filter((r) => !isOld(r) || !ended(r));
  await expectLists(webhook, left);
  const root2 = await seriesRootModel(conn).findById(series).lean();
  expect(root2?.base).toBe(4); // positions 0..99 gone; bucket 4 holds the first of the 60 later runs
  expect(await bucketSummaryModel(conn).countDocuments({ series, k: { $lt: 4 } })).toBe(0);
}, 120_000);

it('removes in bounded batches: each delete command names at most batchSize runs', async () => {
  const webhook = newObjectId();
  const runs: ExecutionRecord[] = [];
  for (let i = 0; i < 40; i++) runs.push(await run(webhook, T0 - 31 * DAY + Math.floor(i / 20) * HOUR));
  for (let i = 0; i < 5; i++) runs.push(await run(webhook, T0 - 2 * DAY + i * MIN));
  deleteCommands.length = 0;
  const report = await retention({ batchSize: 7 }).sweep();
  expect(report.removed).toBe(40);
  // Two hours of 20 runs: batches of 7, 7 and 6 in each.
  expect(report.batches).toBe(6);
  expect(deleteCommands).toHaveLength(6);
  for (const d of deleteCommands) expect(d.ids).toBeLessThanOrEqual(7);
  await expectLists(webhook, runs.slice(40));
}, 120_000);

it('two replicas sweeping at once: one holds the lease, each run is removed once; a dead holder is replaced', async () => {
  const webhook = newObjectId();
  const runs: ExecutionRecord[] = [];
  for (let i = 0; i < 60; i++) runs.push(await run(webhook, T0 - 40 * DAY + i * MIN, i % 2 ? 'ok' : 'fail'));
  for (let i = 0; i < 10; i++) runs.push(await run(webhook, T0 - DAY + i * MIN));
  await repo.fill(owner, webhook);
  // A second replica: its own connection to the same database.
  const conn2 = await connectMongo({ uri: testInfra.mongoUri, dbName: conn.name });
  try {
    const a = retention({ holder: 'a', batchSize: 5, pauseMs: 20 });
    const b = createExecutionRetention({
      conn: conn2,
      retentionDays: 30,
      clock,
      logger: captureLogger('scheduler').logger,
      holder: 'b',
      batchSize: 5,
      pauseMs: 20,
    });
    await Promise.all([a.init(), b.init()]);
    const reports = await Promise.all([a.sweep(), b.sweep()]);
    expect(reports.filter((r) => r.ran)).toHaveLength(1);
    expect(reports.reduce((n, r) => n + r.removed, 0)).toBe(60);
    await expectLists(webhook, runs.slice(60));
    // Both again, one after the other: nothing left to remove, nothing removed twice.
    expect((await b.sweep()).removed).toBe(0);
    expect((await a.sweep()).removed).toBe(0);

    // A replica that died holding the lease: the other waits for it to lapse, then takes over.
    for (let i = 0; i < 10; i++) runs.push(await run(webhook, T0 - DAY + (20 + i) * MIN));
    T0 += 30 * DAY; // all 20 young runs are now past the window
    await conn
      .collection('execution_retention')
      .insertOne({ _id: 'lease', holder: 'dead', until: new Date(T0 + 60_000) } as never);
    expect(await b.sweep()).toMatchObject({ ran: false, removed: 0 });
    T0 += 2 * MIN;
    expect(await b.sweep()).toMatchObject({ ran: true, removed: 20 });
    expect(await list(webhook)).toEqual({ items: [], total: 0 });
  } finally {
    await conn2.close();
  }
}, 120_000);

it('a sweeper that stopped between a delete and its tombstones leaves them to the next sweep', async () => {
  const webhook = newObjectId();
  const runs: ExecutionRecord[] = [];
  for (let i = 0; i < 80; i++) runs.push(await run(webhook, T0 - 10 * DAY + i * MIN));
  await repo.fill(owner, webhook);
  // The state a crash leaves: a run of a final bucket deleted, its tombstone only written down as pending.
  const victim = runs[3]!;
  const coll = conn.collection('executions');
  const doc = (await coll.findOne({ _id: new mongoose.Types.ObjectId(victim.id) }))!;
  const series = seriesKeyOf(owner, webhook);
  await seriesRootModel(conn).updateOne({ _id: series }, { $set: { tombs: true } });
  const tomb = {
    _id: doc._id,
    series,
    seq: doc.seq,
    slot: doc.slot,
    bucket: doc.bucket,
    fire_key: doc.fire_key,
    tomb: series,
  };
  const r = retention();
  await r.init();
  await conn.collection('execution_retention').insertOne({ _id: 'pending:x', tombs: [tomb] } as never);
  await coll.deleteOne({ _id: doc._id });
  expect((await list(webhook)).total).toBe(80); // the final bucket still counts the run

  expect((await r.sweep()).removed).toBe(0);
  await expectLists(
    webhook,
    runs.filter((x) => x.id !== victim.id),
  );
  expect(await conn.collection('execution_retention').countDocuments({ tombs: { $exists: true } })).toBe(0);
}, 120_000);

describe('EXECUTION_RETENTION_DAYS', () => {
  const env = {
    AGENT_SERVICE_URL: 'http://127.0.0.1:1',
    WEBHOOK_SECRET_ENCRYPTION_KEY: 'a'.repeat(64),
    SCHEDULE_SECRET_ENCRYPTION_KEY: 'b'.repeat(64),
  };
  const load = (v?: string) =>
    loadConfig(configSchema, { ...process.env, ...env, EXECUTION_RETENTION_DAYS: v }).EXECUTION_RETENTION_DAYS;

  it('defaults to 30 and takes whole days 0..3650 (0: kept forever, no sweep)', () => {
    expect(load()).toBe(30);
    expect(load('0')).toBe(0);
    expect(load('1')).toBe(1);
    expect(load('3650')).toBe(3650);
  });

  it.each(['-1', '3651', '1.5', 'thirty'])('refuses %j at startup with a message naming the variable', (v) => {
    expect(() => load(v)).toThrow(ConfigError);
    expect(() => load(v)).toThrow(/EXECUTION_RETENTION_DAYS: /);
  });
});
