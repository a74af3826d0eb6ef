import {
  analyzeLookupTables,
  atomicStrategy,
  ensureLookupIndexes,
  mongoose,
  newObjectId,
  type Connection,
} from '@platform/db';
import {
  createExecutionRepository,
  createIdempotencyStore,
  createScheduleRepository,
  type ExecutionRepository,
} from '@platform/scheduling';
import { createTestDatabases, type TestDatabases } from '@platform/testing';

import { createWebhookRepository } from '../src/webhooks/webhook.repository';
import { captureQueries, type Captured } from './query-capture';

// Every query the trigger, the runs and the execution lists make on their hot paths must be served by an index on
// the server the tests run on: on FerretDB (PostgreSQL) no "Seq Scan" of a collection's table, on MongoDB no
// COLLSCAN. The queries are captured from the real repositories, then explained on collections padded with
// thousands of documents, enough for PostgreSQL's planner to prefer an index where one serves.

const PAD = 4000;
/** Where FerretDB keeps its data on this machine (scripts/lib.sh's default), when the variable is not set. */
const PG_URL = process.env.FERRETDB_POSTGRESQL_URL ?? 'postgres://postgres@127.0.0.1:5432/ferretdb';
const owner = { user_id: 'hot-user', org_id: 'hot-org' };
let dbs: TestDatabases;
let conn: Connection;
let executions: ExecutionRepository;
const captured: Captured[] = [];

beforeAll(async () => {
  dbs = await createTestDatabases('hotq');
  conn = dbs.conn;
  executions = createExecutionRepository(conn);
  await executions.init();
}, 60_000);
afterAll(() => dbs.cleanup());

const capture = () => captureQueries(conn, captured);

/** Runs of one webhook and one schedule through the real code paths, capturing every query they make. */
async function runHotPaths(): Promise<void> {
  const webhookId = newObjectId();
  const scheduleId = newObjectId();
  const now = new Date();
  capture();
  await createWebhookRepository(conn).findForTrigger(webhookId);
  await createWebhookRepository(conn).get(owner, webhookId);
  const schedules = createScheduleRepository(conn);
  await schedules.get(owner, 'agent', scheduleId);
  await schedules.getById(scheduleId);
  const runs = [];
  for (let i = 0; i < 60; i++) {
    runs.push(
      await executions.create(
        { kind: 'webhook', webhook_id: webhookId, agent_id: '3', ...owner, payload: { i }, max_attempts: 3 },
        new Date(now.getTime() - (60 - i) * 1000),
      ),
    );
  }
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
  await executions.hasUnfinishedRun(scheduleId);
  await executions.getByFireKey(`${scheduleId}:1`);
  const keys = createIdempotencyStore(conn);
  await keys.claim(webhookId, 'key-1', runs[0]!.id, now);
  await keys.claim(webhookId, 'key-1', runs[4]!.id, now); // a replay reads the holder
  const run = runs[1]!;
  await executions.get(run.id);
  await executions.claim(run.id, now);
  await executions.finish(
    run.id,
    1,
    { success: false, response_status: 500, response_output: null, error_message: 'x' },
    now,
    now,
  );
  await executions.claim(runs[2]!.id, now);
  await executions.retryLater(runs[2]!.id, 1, {
    success: false,
    response_status: 503,
    response_output: null,
    error_message: 'busy',
  });
  await executions.abandon(fire!.id, 'gone', now);
  await executions.unfinished({ queuedBefore: now, runningBefore: now, limit: 200 });
  await executions.claim(runs[2]!.id, now, 1);
  await executions.markRecovered(runs[2]!.id, 0);
  await executions.delete(runs[3]!.id);
  await executions.settle();
  const hour = new Date(now.getTime() - 3600_000);
  for (const q of [
    {},
    { skip: 40 },
    { statuses: ['failed' as const] },
    { statuses: ['succeeded' as const, 'queued' as const] },
    { from: new Date(now.getTime() - 30_000) },
    { to: new Date(now.getTime() - 20_000) },
  ]) {
    await executions.list(owner, { webhook_id: webhookId, skip: 0, limit: 50, ...q });
  }
  await executions.list(owner, { kinds: ['webhook'], since: hour, skip: 0, limit: 50 });
  await executions.list(owner, {
    kinds: ['webhook'],
    agent_id: '3',
    since: hour,
    statuses: ['failed'],
    skip: 0,
    limit: 50,
  });
  conn.set('debug', false);
}

/** Pads every collection the hot paths touched with documents that hold other values of the fields they filter on. */
async function pad(): Promise<void> {
  const byCollection = new Map<string, Set<string>>();
  for (const c of captured) {
    const fields = byCollection.get(c.collection) ?? new Set<string>();
    for (const k of Object.keys(c.filter)) if (!k.startsWith('$')) fields.add(k);
    byCollection.set(c.collection, fields);
  }
  for (const [collection, fields] of byCollection) {
    const docs = Array.from({ length: PAD }, (_, i) => {
      const d: Record<string, unknown> = { _id: new mongoose.Types.ObjectId() };
      for (const f of fields) if (f !== '_id') d[f] = `pad-${f}-${i}`;
      return d;
    });
    for (let i = 0; i < docs.length; i += 1000) await conn.collection(collection).insertMany(docs.slice(i, i + 1000));
  }
  if ((await atomicStrategy(conn)) !== 'claims') return;
  for (const model of Object.values(conn.models)) await ensureLookupIndexes(model, PG_URL);
  await analyzeLookupTables(conn, PG_URL);
}

interface PlanNode {
  'Node Type'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function seqScans(plan: PlanNode | undefined): string[] {
  if (!plan) return [];
  const own = plan['Node Type'] === 'Seq Scan' ? [plan['Relation Name'] ?? '?'] : [];
  return [...own, ...(plan.Plans ?? []).flatMap(seqScans)];
}

/** How the server would read a filter: 'index', or what scans the collection. */
async function accessOf(collection: string, filter: Record<string, unknown>): Promise<string> {
  const out = (await conn.db!.command({ explain: { find: collection, filter }, verbosity: 'queryPlanner' })) as {
    queryPlanner?: { Plan?: PlanNode; winningPlan?: unknown };
  };
  const plan = out.queryPlanner;
  if (plan?.Plan) {
    const scans = seqScans(plan.Plan);
    return scans.length ? `Seq Scan on ${scans.join(', ')}` : 'index';
  }
  return JSON.stringify(plan?.winningPlan ?? {}).includes('COLLSCAN') ? 'COLLSCAN' : 'index';
}

/**
 * Queries the paths above may make that are not hot, with why. Both touch only the revision claims (libs/db
 * atomic.ts, FerretDB only), a table that holds just the claims and leases in flight, whatever the size of the
 * collections they guard: the stale-claim sweep runs on 1 in 1,000 atomic updates (when the random draw made it
 * during these paths, its range on `at` was reported as a scan); the batched release deletes the claims of a batch
 * of updates together by `_id: {$in}`, which FerretDB reads by a scan of that small table.
 */
const NOT_HOT = new Set(['_revision_claims deleteMany at', '_revision_claims deleteMany _id']);

test('every hot query is served by an index', async () => {
  await runHotPaths();
  const shapes = new Map<string, Captured>();
  for (const c of captured) shapes.set(`${c.collection} ${c.method} ${Object.keys(c.filter).sort().join(',')}`, c);
  // The paths above must have reached every kind of lookup they make, or the test proves less than it says.
  const seen = [...shapes.keys()].join('\n');
  for (const field of [
    'executions findOne _id',
    'bucket',
    'tomb',
    'series,status',
    'day_keys',
    'fire_key',
    'schedule_id,status',
    'execution_series',
    'idempotency_keys',
    'webhooks',
    'schedules',
  ]) {
    expect(seen).toContain(field);
  }
  await pad();
  const scans: string[] = [];
  for (const [shape, c] of shapes) {
    if (NOT_HOT.has(shape)) continue;
    const access = await accessOf(c.collection, c.filter);
    if (access !== 'index') scans.push(`${shape}: ${access}`);
  }
  expect(scans).toEqual([]);
}, 120_000);
