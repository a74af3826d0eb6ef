import { connectMongo, type Connection } from '@platform/db';
import {
  createExecutionRepository,
  EXECUTION_STATUSES,
  type ExecutionQuery,
  type ExecutionRecord,
  type ExecutionRepository,
  type ExecutionStatus,
} from '@platform/scheduling';
import { testInfra, uniqueName } from '@platform/testing';

// Lists are index-served pages with exact totals (execution.lists.ts); every answer here is compared with the same
// list computed the plain way from every run, over inversions of triggered_at against insert order, deleted runs,
// status and time filters and deep skips.
let conn: Connection;
let other: Connection;
let repo: ExecutionRepository;
const owner = { user_id: 'u-lists', org_id: 'o-lists' };
const base = Date.now() - 10 * 24 * 3600_000;
const ok = { success: true, response_status: 200, response_output: 'ok', error_message: null };
const bad = { success: false, response_status: 500, response_output: null, error_message: 'boom' };

beforeAll(async () => {
  const dbName = uniqueName('execlists');
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName });
  other = await connectMongo({ uri: testInfra.mongoUri, dbName }); // a second process on the same database
  repo = createExecutionRepository(conn);
  await repo.init();
});
afterAll(async () => {
  await conn.dropDatabase();
  await Promise.all([conn.close(), other.close()]);
});

const newest = (a: ExecutionRecord, b: ExecutionRecord) =>
  b.triggered_at.localeCompare(a.triggered_at) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);

/** What a list must answer, computed from every run. */
function oracle(all: ExecutionRecord[], q: ExecutionQuery) {
  const matches = all
    .filter((e) => !q.statuses || q.statuses.includes(e.status))
    .filter((e) => q.success === undefined || e.success === q.success)
    .filter((e) => (!q.from || new Date(e.triggered_at) >= q.from) && (!q.to || new Date(e.triggered_at) < q.to))
    .sort(newest);
  return { ids: matches.slice(q.skip, q.skip + q.limit).map((e) => e.id), total: matches.length };
}

async function expectSame(all: ExecutionRecord[], q: ExecutionQuery) {
  const got = await repo.list(owner, q);
  expect({ ids: got.items.map((e) => e.id), total: got.total }).toEqual(oracle(all, q));
}

/** Runs of one webhook with triggered_at jittered against insert order, a few failed, skipped, running or deleted. */
async function seedSeries(webhookId: string, n: number): Promise<ExecutionRecord[]> {
  const kept: ExecutionRecord[] = [];
  for (let i = 0; i < n; i++) {
    // Mostly a few minutes off insert order; every 41st run was triggered two hours before it was stored.
    const late = i % 41 === 40 ? 120 * 60_000 : 0;
    const at = new Date(base + i * 60_000 + ((i * 7919) % 11) * 37_000 - 150_000 - late);
    const skipped = i % 17 === 5;
    let e = await repo.create(
      {
        kind: 'webhook',
        webhook_id: webhookId,
        agent_id: '7',
        ...owner,
        payload: { i },
        max_attempts: 3,
        ...(skipped ? { status: 'skipped' as const } : {}),
      },
      at,
    );
    if (!skipped && i % 5 !== 3) {
      e = (await repo.claim(e.id, at, { claimant: `job-${i}` }))!;
      if (i % 9 !== 4) e = (await repo.finish(e.id, 1, i % 13 === 2 ? bad : ok, at, at))!;
    }
    if (i % 23 === 11) await repo.delete(e.id);
    else kept.push(e);
  }
  return kept;
}

function queries(all: ExecutionRecord[]): ExecutionQuery[] {
  const times = all.map((e) => new Date(e.triggered_at).getTime()).sort((a, b) => a - b);
  const at = (f: number) => new Date(times[Math.floor(f * (times.length - 1))]!);
  const qs: ExecutionQuery[] = [];
  for (const [skip, limit] of [
    [0, 50],
    [0, 1],
    [3, 7],
    [49, 50],
    [120, 50],
    [all.length - 5, 50],
    [all.length + 10, 5],
  ] as const) {
    qs.push({ skip, limit });
    qs.push({ skip, limit, statuses: ['failed'] });
    qs.push({ skip, limit, statuses: ['succeeded', 'skipped'] });
    qs.push({ skip, limit, success: true });
    qs.push({ skip, limit, from: at(0.3) });
    qs.push({ skip, limit, to: at(0.6) });
    qs.push({ skip, limit, from: at(0.25), to: at(0.7), statuses: ['succeeded'] });
    qs.push({ skip, limit, from: at(0.1), to: at(0.12) });
  }
  qs.push({ skip: 0, limit: 50, statuses: ['failed'], success: true });
  qs.push({ skip: 0, limit: 50, statuses: [...EXECUTION_STATUSES] });
  return qs;
}

test('pages and totals equal the plain computation', async () => {
  const all = await seedSeries('w-lists', 232);
  for (const q of queries(all)) await expectSame(all, { ...q, webhook_id: 'w-lists' });
}, 120_000);

test('concurrent creates from two processes are all listed, each once', async () => {
  const second = createExecutionRepository(other);
  const make = (r: ExecutionRepository, i: number) =>
    r.create(
      { kind: 'webhook', webhook_id: 'w-race', agent_id: '7', ...owner, payload: { i }, max_attempts: 3 },
      new Date(base + i),
    );
  const made = await Promise.all(Array.from({ length: 120 }, (_, i) => make(i % 2 ? second : repo, i)));
  const listed = await repo.list(owner, { webhook_id: 'w-race', skip: 0, limit: 100 });
  expect(listed.total).toBe(120);
  const rest = await repo.list(owner, { webhook_id: 'w-race', skip: 100, limit: 100 });
  const ids = [...listed.items, ...rest.items].map((e) => e.id);
  expect(ids).toHaveLength(120);
  expect(new Set(ids)).toEqual(new Set(made.map((e) => e.id)));
});

test('a deleted run leaves the counts exact', async () => {
  const runs: ExecutionRecord[] = [];
  for (let i = 0; i < 100; i++) {
    runs.push(
      await repo.create(
        { kind: 'webhook', webhook_id: 'w-del', ...owner, payload: null, max_attempts: 1 },
        new Date(base + i * 1000),
      ),
    );
  }
  await repo.delete(runs[3]!.id);
  await repo.delete(runs[76]!.id);
  const kept = runs.filter((_, i) => i !== 3 && i !== 76);
  expect(await repo.get(runs[3]!.id)).toBeNull();
  for (const q of [
    { skip: 0, limit: 100 },
    { skip: 90, limit: 50 },
    { skip: 0, limit: 10, statuses: ['queued' as ExecutionStatus] },
  ]) {
    await expectSame(kept, { ...q, webhook_id: 'w-del' });
  }
});

test('recent lists: per owner, kind and agent, within the window, filtered by status', async () => {
  const now = Date.now();

  const mk = (agent: string, minutesAgo: number, kind: 'webhook' | 'agent_schedule' = 'webhook') =>
    repo.create(
      {
        kind,
        webhook_id: kind === 'webhook' ? 'w-recent' : null,
        schedule_id: kind === 'webhook' ? null : 's-recent',
        agent_id: agent,
        ...owner,
        payload: null,
        max_attempts: 1,
      },
      new Date(now - minutesAgo * 60_000),
    );
  const a = await mk('1', 5);
  const b = await mk('2', 90);
  await mk('1', 60 * 30); // outside 24 h
  await mk('1', 10, 'agent_schedule');
  await repo.claim(b.id, new Date(), { claimant: 'job-b' });
  await repo.finish(b.id, 1, bad, new Date(), new Date());
  const recent = (q: Partial<ExecutionQuery>) =>
    repo.list(owner, { kinds: ['webhook'], since: new Date(now - 24 * 3600_000), skip: 0, limit: 50, ...q });
  expect((await recent({})).items.map((e) => e.id)).toEqual([a.id, b.id]);
  expect((await recent({ agent_id: '1' })).items.map((e) => e.id)).toEqual([a.id]);
  expect((await recent({ statuses: ['failed'] })).items.map((e) => e.id)).toEqual([b.id]);
  expect((await recent({ success: false, statuses: ['failed', 'queued'] })).total).toBe(1);
  expect((await recent({ from: new Date(now - 30 * 60_000) })).total).toBe(1);
  expect((await recent({ to: new Date(now - 30 * 60_000) })).items.map((e) => e.id)).toEqual([b.id]);
  expect(
    (
      await repo.list(
        { user_id: 'someone', org_id: 'else' },
        { kinds: ['webhook'], since: new Date(now - 3600_000), skip: 0, limit: 5 },
      )
    ).total,
  ).toBe(0);
  // Any window: the 30-hour-old run of agent 1 is in a 40-day one.
  expect((await recent({ agent_id: '1', since: new Date(now - 40 * 24 * 3600_000) })).total).toBe(2);
});
