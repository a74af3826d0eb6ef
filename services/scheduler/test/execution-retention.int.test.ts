import { ConfigError, loadConfig } from '@platform/config';
import { connectMongo, expireNow, type Connection } from '@platform/db';
import {
  createExecutionRepository,
  ensureExecutionRetention,
  RETENTION_INDEX,
  type ExecutionRecord,
  type ExecutionRepository,
} from '@platform/scheduling';
import { createTestDatabases, eventually, testInfra, type TestDatabases } from '@platform/testing';

import { configSchema } from '../src/config';

// Execution retention on the real store: a TTL index on `finished_at` removes runs that ended before the window;
// younger ones and runs not ended stay, and every list and count (totals, status and time filters, pages) is exact
// before and after. Instants are derived from now; nothing depends on the date the test runs.

const DAY = 24 * 3600_000;
const owner = { user_id: 'keeper', org_id: 'acme' };
const ok = { success: true, response_status: 200, response_output: 'ok', error_message: null };
const bad = { success: false, response_status: 500, response_output: null, error_message: 'boom' };

let dbs: TestDatabases;
let conn: Connection;
let repo: ExecutionRepository;
let T0: number;

beforeEach(async () => {
  dbs = await createTestDatabases('retain');
  conn = dbs.conn;
  repo = createExecutionRepository(conn);
  await repo.init();
  T0 = Date.now();
}, 60_000);
afterEach(() => dbs.cleanup(), 30_000);

/** A webhook run triggered and ended at `at` (failed when `fail`), or left queued. */
async function run(webhookId: string, at: number, end: 'ok' | 'fail' | 'queued' = 'ok'): Promise<ExecutionRecord> {
  const r = await repo.create(
    { kind: 'webhook', webhook_id: webhookId, agent_id: '7', ...owner, payload: { at }, max_attempts: 1 },
    new Date(at),
  );
  if (end === 'queued') return r;
  await repo.claim(r.id, new Date(at), { claimant: `job-${r.id}` });
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

it('removes runs ended before the window, keeps younger and unended ones; lists and counts exact', async () => {
  const runs: ExecutionRecord[] = [];
  // 60 days of runs, one every 18 hours (none within an hour of the window's edge): every 7th fails, every 11th
  // never ended.
  for (let i = 0; i < 80; i++) {
    const at = T0 - 60 * DAY + i * 18 * 3600_000 + 3600_000;
    runs.push(await run('w-keep', at, i % 11 === 5 ? 'queued' : i % 7 === 3 ? 'fail' : 'ok'));
  }
  const other = await run('w-other', T0 - 40 * DAY);
  await expectLists('w-keep', runs);
  expect(await ensureExecutionRetention(conn, 30)).toBe('set');
  const kept = runs.filter((r) => !(isOld(r) && ended(r)));
  await eventually(
    'the old ended runs to go',
    async () => {
      await expireNow(conn);
      return (await list('w-keep')).total === kept.length ? true : undefined;
    },
    130_000,
  );
  await expectLists('w-keep', kept);
  expect(await repo.get(other.id)).toBeNull();
  expect(runs.filter((r) => isOld(r) && !ended(r)).length).toBeGreaterThan(0); // old unended runs are among the kept
}, 150_000);

it('replicas starting at once agree on one index; a new period replaces it, 0 removes it', async () => {
  const second = await connectMongo({ uri: testInfra.mongoUri, dbName: conn.name });
  try {
    const results = await Promise.all([ensureExecutionRetention(conn, 30), ensureExecutionRetention(second, 30)]);
    expect(results.every((r) => r === 'set' || r === 'kept')).toBe(true);
    const ttl = async () =>
      (await conn.db!.collection('executions').listIndexes().toArray()).filter((i) => i.name === RETENTION_INDEX);
    expect(await ttl()).toHaveLength(1);
    expect(await ensureExecutionRetention(conn, 7)).toBe('set');
    expect((await ttl())[0]).toMatchObject({ key: { finished_at: 1 } });
    // A run ended 10 days ago goes under a 7-day period.
    const tenDays = await run('w-period', T0 - 10 * DAY);
    await eventually(
      'the 10-day-old run to go under 7 days',
      async () => {
        await expireNow(conn);
        return (await repo.get(tenDays.id)) === null ? true : undefined;
      },
      130_000,
    );
    expect(await ensureExecutionRetention(conn, 0)).toBe('off');
    expect(await ttl()).toHaveLength(0);
    const kept = await run('w-period', T0 - 400 * DAY);
    await expireNow(conn);
    expect(await repo.get(kept.id)).not.toBeNull();
  } finally {
    await second.close();
  }
}, 150_000);

describe('EXECUTION_RETENTION_DAYS', () => {
  const env = {
    AGENT_SERVICE_URL: 'http://127.0.0.1:1',
    WEBHOOK_SECRET_ENCRYPTION_KEY: 'a'.repeat(64),
    SCHEDULE_SECRET_ENCRYPTION_KEY: 'b'.repeat(64),
  };
  const load = (v?: string) =>
    loadConfig(configSchema, { ...process.env, ...env, EXECUTION_RETENTION_DAYS: v }).EXECUTION_RETENTION_DAYS;

  it('defaults to 30 and takes whole days 0..3650 (0: kept forever, no TTL index)', () => {
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
