import { connectMongo, expireNow, mongoose, type Connection } from '@platform/db';
import {
  createExecutionRepository,
  ensureExecutionRetention,
  LEGACY_COLLECTIONS,
  LEGACY_EXECUTION_INDEXES,
  RETENTION_INDEX,
} from '@platform/scheduling';
import { eventually, testInfra, uniqueName } from '@platform/testing';

// A database written by the versions that kept runs at numbered positions in buckets (series, seq, slot, bucket,
// day_keys, ib, hour, tombstones, revision claims) is read by this one after its migration at start.
let conn: Connection;
const owner = { user_id: 'u-old', org_id: 'o-old' };
const hour = 3_600_000;

beforeAll(async () => {
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('migrate') });
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

/** A run as the earlier versions stored it. */
function oldRun(seq: number, status: string, at: Date, extra: Record<string, unknown> = {}) {
  const _id = new mongoose.Types.ObjectId();
  const series = `${owner.user_id}|${owner.org_id}|w-old`;
  return {
    _id,
    kind: 'webhook',
    webhook_id: 'w-old',
    schedule_id: null,
    agent_id: '7',
    ...owner,
    session_id: `execution-${_id.toHexString()}`,
    status,
    success: status === 'succeeded' ? true : status === 'failed' ? false : null,
    attempt: status === 'queued' ? 0 : 1,
    max_attempts: 3,
    scheduled_for: null,
    triggered_at: at,
    started_at: status === 'queued' ? null : at,
    finished_at: ['succeeded', 'failed'].includes(status) ? at : null,
    duration_ms: null,
    payload_json: JSON.stringify({ seq }),
    response_status: null,
    response_output: null,
    error_message: null,
    fire_key: _id.toHexString(),
    retry_delay_ms: null,
    recoveries: 0,
    series,
    seq,
    slot: `${series}#${seq}`,
    bucket: `${series}#b${Math.floor(seq / 25)}`,
    day_keys: [`${owner.user_id}|${owner.org_id}|webhook|${Math.floor(at.getTime() / 86_400_000)}`],
    ib: 'batch-1',
    hour: Math.floor(at.getTime() / hour),
    _rev: 3,
    ...extra,
  };
}

test('runs stored by the bucketed versions are listed, recovered and run; their leftovers go', async () => {
  const db = conn.db!;
  const executions = db.collection('executions');
  const now = Date.now();
  const runs = [
    oldRun(0, 'succeeded', new Date(now - 5 * hour)),
    oldRun(1, 'failed', new Date(now - 4 * hour)),
    oldRun(2, 'queued', new Date(now - 3 * hour)),
    oldRun(3, 'running', new Date(now - 2 * hour)),
  ];
  const series = runs[0]!.series;
  const tombstone = {
    _id: new mongoose.Types.ObjectId(),
    series,
    seq: 4,
    slot: `${series}#4`,
    bucket: `${series}#b0`,
    fire_key: 'x',
    tomb: series,
  };
  await executions.insertMany([...runs, tombstone]);
  await executions.createIndex({ slot: 1 }, { unique: true });
  for (const field of ['bucket', 'ib', 'tomb', 'hour']) await executions.createIndex({ [field]: 1 });
  for (const name of LEGACY_COLLECTIONS) await db.collection(name).insertOne({ _id: 'x' } as never);

  const repo = createExecutionRepository(conn);
  await repo.init();

  const indexes = (await executions.listIndexes().toArray()).map((i) => i.name as string);
  for (const legacy of LEGACY_EXECUTION_INDEXES) expect(indexes).not.toContain(legacy);
  const collections = (await db.listCollections().toArray()).map((c) => c.name);
  for (const legacy of LEGACY_COLLECTIONS) expect(collections).not.toContain(legacy);
  expect(await executions.countDocuments({ _id: tombstone._id })).toBe(0);

  // Listed in order with an exact total, beside runs written now (which no longer collide on `slot`).
  const fresh = await Promise.all(
    [1, 2].map((i) =>
      repo.create(
        { kind: 'webhook', webhook_id: 'w-old', agent_id: '7', ...owner, payload: { i }, max_attempts: 1 },
        new Date(now - i * 1000),
      ),
    ),
  );
  const list = await repo.list(owner, { webhook_id: 'w-old', skip: 0, limit: 50 });
  expect(list.total).toBe(6);
  expect(list.items.map((e) => e.id)).toEqual([
    ...fresh.map((e) => e.id),
    ...runs.map((r) => r._id.toHexString()).reverse(),
  ]);
  expect(list.items.at(-1)?.payload).toEqual({ seq: 0 });
  expect((await repo.list(owner, { webhook_id: 'w-old', statuses: ['failed'], skip: 0, limit: 5 })).total).toBe(1);

  // The recovery rule sees the old unfinished runs; the old queued one is claimed and finished as any.
  const before = new Date(now - hour); // the old runs, not the fresh ones
  const unfinished = await repo.unfinished({ queuedBefore: before, runningBefore: before, limit: 100 });
  expect(unfinished.runs.map((r) => r.id).sort()).toEqual(
    [runs[2]!._id, runs[3]!._id].map((id) => id.toHexString()).sort(),
  );
  const id = runs[2]!._id.toHexString();
  expect(await repo.claim(id, new Date(), { claimant: 'job-1' })).toMatchObject({ status: 'running', attempt: 1 });
  expect(
    await repo.finish(
      id,
      1,
      { success: true, response_status: 200, response_output: 'ok', error_message: null },
      new Date(),
      new Date(),
    ),
  ).toMatchObject({ status: 'succeeded' });

  // A second start (another replica, a restart) finds nothing left to do.
  await createExecutionRepository(conn).init();
  expect((await repo.list(owner, { webhook_id: 'w-old', skip: 0, limit: 50 })).total).toBe(6);
});

test('retention: a TTL index on finished_at removes runs ended before the window, never unfinished ones', async () => {
  const repo = createExecutionRepository(conn);
  await repo.init();
  const now = Date.now();
  const make = (at: number) =>
    repo.create({ kind: 'webhook', webhook_id: 'w-ttl', ...owner, payload: null, max_attempts: 1 }, new Date(at));
  const [old, recent, waiting] = await Promise.all([
    make(now - 40 * 24 * hour),
    make(now - hour),
    make(now - 40 * 24 * hour),
  ]);
  const ok = { success: true, response_status: 200, response_output: 'ok', error_message: null };
  for (const [e, endedAt] of [
    [old!, now - 31 * 24 * hour],
    [recent!, now - hour],
  ] as const) {
    await repo.claim(e.id, new Date(endedAt), { claimant: 'job' });
    await repo.finish(e.id, 1, ok, new Date(endedAt), new Date(endedAt));
  }
  expect(await ensureExecutionRetention(conn, 30)).toBe('set');
  expect(await ensureExecutionRetention(conn, 30)).toBe(process.env.STORE_SERVER === 'ferretdb' ? 'set' : 'kept');
  await eventually(
    'the run ended 31 days ago to go',
    async () => {
      await expireNow(conn);
      return (await repo.get(old!.id)) === null ? true : undefined;
    },
    130_000,
  );
  expect(await repo.get(recent!.id)).not.toBeNull();
  expect(await repo.get(waiting!.id)).toMatchObject({ status: 'queued' });
  expect(await ensureExecutionRetention(conn, 0)).toBe('off');
  const names = (await conn.db!.collection('executions').listIndexes().toArray()).map((i) => i.name as string);
  expect(names).not.toContain(RETENTION_INDEX);
}, 150_000);
