import {
  atomicStrategy,
  ensureLookupIndexes,
  mongoose,
  newObjectId,
  readCostOf,
  type Connection,
  type ReadCost,
} from '@platform/db';
import {
  bucketIndexOf,
  bucketKey,
  createExecutionRepository,
  createIdempotencyStore,
  createWebhookStats,
  dayKeysOf,
  seriesKeyOf,
  slotKey,
  type ExecutionRepository,
} from '@platform/scheduling';
import { captureLogger, createTestDatabases, type TestDatabases } from '@platform/testing';

import { createWebhookRepository } from '../src/webhooks/webhook.repository';
import { captureQueries, type Captured } from './query-capture';

// What the trigger and the run path read must not grow with the executions collection: every query they make is
// measured on a collection holding a few thousand ended executions of other webhooks, then again after ten times as
// many more were stored, and must read no more. On FerretDB a query is measured by PostgreSQL itself (EXPLAIN ANALYZE
// of the statement FerretDB plans for it: index entries and rows it read, buffers it touched); on MongoDB by the
// server's execution statistics (keys and documents examined). The extra ended executions were inserted after the
// collection's indexes existed, as months of traffic store them (not loaded into an empty table and indexed after).

const FIRST = 3_000;
const MORE = 30_000;
const PG_URL = process.env.FERRETDB_POSTGRESQL_URL ?? 'postgres://postgres@127.0.0.1:5432/ferretdb';
const owner = { user_id: 'grow-user', org_id: 'grow-org' };
let dbs: TestDatabases;
let conn: Connection;
let executions: ExecutionRepository;
let seeded = 0;

beforeAll(async () => {
  dbs = await createTestDatabases('growq');
  conn = dbs.conn;
  executions = createExecutionRepository(conn);
  await executions.init();
  if ((await atomicStrategy(conn)) === 'claims')
    for (const model of Object.values(conn.models)) await ensureLookupIndexes(model, PG_URL);
}, 60_000);
afterAll(() => dbs.cleanup());

/** Stores `n` ended executions of 300 other webhooks of 30 other owners, as the repository stores them. */
async function seedEnded(n: number): Promise<void> {
  const span = 10 * 24 * 3600_000;
  const now = Date.now();
  const coll = conn.collection('executions');
  for (let i = 0; i < n; i += 1000) {
    const docs = Array.from({ length: Math.min(1000, n - i) }, (_, j) => {
      const k = seeded + i + j;
      const w = k % 300;
      const who = { user_id: `other-${w % 30}`, org_id: 'other' };
      const series = seriesKeyOf(who, `${(w + 1).toString(16).padStart(24, '0')}`);
      const seq = Math.floor(k / 300);
      const at = new Date(now - span + (k % 1000) * 60_000);
      const id = new mongoose.Types.ObjectId();
      const status = k % 100 < 3 ? 'failed' : 'succeeded';
      return {
        _id: id,
        kind: 'webhook',
        webhook_id: series.split('|')[2],
        schedule_id: null,
        agent_id: '7',
        ...who,
        session_id: `execution-${id.toHexString()}`,
        status,
        success: status === 'succeeded',
        attempt: 1,
        max_attempts: 3,
        triggered_at: at,
        started_at: at,
        finished_at: at,
        duration_ms: 800,
        payload_json: '{"event":"order.created"}',
        response_status: 200,
        response_output: 'done',
        error_message: null,
        fire_key: id.toHexString(),
        retry_delay_ms: null,
        recoveries: 0,
        series,
        seq,
        slot: slotKey(series, seq),
        bucket: bucketKey(series, bucketIndexOf(seq)),
        day_keys: dayKeysOf(who, 'webhook', '7', at),
      };
    });
    await coll.insertMany(docs, { ordered: false });
  }
  seeded += n;
}

const captured: Captured[] = [];

const capture = () => captureQueries(conn, captured);

/** Triggers of one webhook and their runs (claimed, retried, finished, released), a fire, and the outbox's sweep. */
async function runTriggerAndRunPaths(): Promise<void> {
  const webhookId = newObjectId();
  const scheduleId = newObjectId();
  const now = new Date();
  const stats = createWebhookStats(conn, captureLogger().logger);
  const keys = createIdempotencyStore(conn);
  capture();
  await createWebhookRepository(conn).findForTrigger(webhookId);
  // Concurrent triggers (stored together, so their runs are claimed together), then one at a time.
  const trigger = async (i: number) => {
    const run = await executions.create(
      { kind: 'webhook', webhook_id: webhookId, agent_id: '3', ...owner, payload: { i }, max_attempts: 3 },
      new Date(now.getTime() - (40 - i) * 1000),
    );
    stats.accepted(webhookId, now);
    return run;
  };
  const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => trigger(i)));
  for (let i = 20; i < 40; i++) runs.push(await trigger(i));
  await keys.claim(webhookId, 'key-1', runs[0]!.id, now);
  await keys.claim(webhookId, 'key-1', runs[5]!.id, now); // a replay reads the holder
  await executions.get(runs[0]!.id);
  await stats.flush();
  // The worker: claims that arrive together, then outcomes, a retry, a release.
  const claimed = await Promise.all(
    runs.slice(0, 8).map((r) => executions.claim(r.id, now, undefined, { batch: r.batch })),
  );
  for (const [k, c] of claimed.entries()) {
    if (!c) continue;
    if (k === 6)
      await executions.retryLater(c.id, c.attempt, {
        success: false,
        response_status: 503,
        response_output: null,
        error_message: 'busy',
      });
    else if (k === 7) await executions.release(c.id);
    else
      await executions.finish(
        c.id,
        c.attempt,
        { success: k % 2 === 0, response_status: 200, response_output: 'ok', error_message: null },
        now,
        now,
      );
    stats.outcome(webhookId, true);
  }
  await executions.claim(runs[6]!.id, now, 1, { batch: runs[6]!.batch }); // a resumed attempt (none: it was retried)
  await executions.claim(runs[6]!.id, now, undefined, { batch: runs[6]!.batch, redelivered: true });
  // A schedule's fire with overlap_policy skip, and the reconciler's look-up of its last fire.
  await executions.hasUnfinishedRun(scheduleId);
  const fire = await executions.createOnce(
    {
      kind: 'agent_schedule',
      schedule_id: scheduleId,
      agent_id: '3',
      ...owner,
      payload: null,
      max_attempts: 1,
      fire_key: `${scheduleId}:1`,
    },
    now,
  );
  await executions.getByFireKey(`${scheduleId}:1`);
  // The outbox's sweep over runs not ended, and what it does to them.
  await executions.unfinished({ queuedBefore: now, runningBefore: new Date(now.getTime() + 1000), limit: 200 });
  await executions.markRecovered(runs[9]!.id, 0);
  await executions.abandon(fire!.id, 'gone', now);
  await stats.flush();
  await executions.settle();
  conn.set('debug', false);
}

/**
 * Collections whose reads are not measured here, with why: the revision claims (FerretDB's atomic updates) hold only
 * the claims in flight, whatever the executions hold; their sweeps read that table whole by design.
 */
const UNMEASURED = new Set(['_revision_claims']);

test('the trigger and run paths read no more as the executions collection grows', async () => {
  await seedEnded(FIRST);
  await runTriggerAndRunPaths();
  const shapes = new Map<string, Captured>();
  for (const c of captured) {
    if (UNMEASURED.has(c.collection)) continue;
    shapes.set(`${c.collection} ${c.method} ${Object.keys(c.filter).sort().join(',')}`, c);
  }
  // The paths must have reached every kind of lookup they make, or the test proves less than it says.
  const seen = [...shapes.keys()].join('\n');
  for (const shape of [
    'webhooks findOne _id',
    'executions findOne _id',
    'bucket',
    'fire_key',
    'schedule_id,status',
    'execution_series',
    'idempotency_keys',
  ]) {
    expect(seen).toContain(shape);
  }
  expect(seen).toMatch(/executions \w+ .*status/); // the outcomes' and the sweep's status equalities

  const before = new Map<string, ReadCost>();
  for (const [shape, c] of shapes) before.set(shape, await readCostOf(conn, c.collection, c.filter, PG_URL));
  await seedEnded(MORE);
  const grew: string[] = [];
  for (const [shape, c] of shapes) {
    const a = before.get(shape)!;
    const b = await readCostOf(conn, c.collection, c.filter, PG_URL);
    // Ten times the ended executions may add a level to an index's tree (a block or two per index read); a query
    // that read (or scanned past) what the new executions brought reads thousands more rows or hundreds of blocks.
    if (b.rows > a.rows + 2 || b.blocks > a.blocks + 8)
      grew.push(`${shape}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`);
  }
  expect(grew).toEqual([]);
}, 240_000);
