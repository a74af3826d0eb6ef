import { connectMongo, expireNow, type Connection } from '@platform/db';
import {
  capUtf8,
  createExecutionRepository,
  createIdempotencyStore,
  IDEMPOTENCY_WINDOW_MS,
  presentExecution,
  type ExecutionRecord,
  type ExecutionRepository,
} from '@platform/scheduling';
import { testInfra, uniqueName } from '@platform/testing';

let conn: Connection;
let repo: ExecutionRepository;
const owner = { user_id: 'u1', org_id: 'o1' };
const now = new Date('2026-01-01T00:00:00Z');
const ok = { success: true, response_status: 200, response_output: 'done', error_message: null };

beforeAll(async () => {
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('sched') });
  repo = createExecutionRepository(conn);
  await repo.init();
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

const newWebhookRun = () =>
  repo.create({ kind: 'webhook', webhook_id: 'w1', agent_id: '7', ...owner, payload: { a: 1 }, max_attempts: 3 }, now);

test('a new execution is queued, with a session of its own', async () => {
  const e = await newWebhookRun();
  expect(e).toMatchObject({ status: 'queued', attempt: 0, success: null, session_id: `execution-${e.id}` });
  expect(Object.keys(presentExecution(e)).sort()).toEqual(
    [
      'id',
      'kind',
      'webhook_id',
      'schedule_id',
      'agent_id',
      'user_id',
      'session_id',
      'status',
      'success',
      'attempt',
      'max_attempts',
      'scheduled_for',
      'triggered_at',
      'started_at',
      'finished_at',
      'duration_ms',
      'payload',
      'response_status',
      'response_output',
      'error_message',
      'replay_of',
      'trace_id',
      'delivery',
    ].sort(),
  );
  expect(presentExecution(e).delivery).toBeNull(); // no callback_url
});

test('recovery sees runs queued or running past their bounds, not younger ones nor ended ones', async () => {
  const e = await newWebhookRun();
  const later = new Date(now.getTime() + 10_000);
  const ids = async (queuedBefore: Date, runningBefore: Date) =>
    (await repo.unfinished({ queuedBefore, runningBefore, limit: 1000 })).runs.filter((r) => r.id === e.id);
  expect(await ids(later, later)).toEqual([{ id: e.id, status: 'queued', recoveries: 0, queue: 'agent-runs' }]);
  expect(await ids(now, later)).toEqual([]);
  await repo.claim(e.id, later, { claimant: 'job-a' });
  expect(await ids(new Date(later.getTime() + 1), later)).toEqual([]); // running, but started at `later`
  expect(await ids(later, new Date(later.getTime() + 1))).toEqual([
    { id: e.id, status: 'running', recoveries: 0, queue: 'agent-runs' },
  ]);
  expect(await repo.markRecovered(e.id, 0)).toBe(true);
  expect(await repo.markRecovered(e.id, 0)).toBe(false); // another sweep already took this recovery
  expect(await repo.get(e.id)).toMatchObject({ status: 'queued' });
  await repo.claim(e.id, later, { claimant: 'job-a' });
  await repo.finish(e.id, 2, ok, later, later);
  expect(await ids(new Date(later.getTime() + 1), new Date(later.getTime() + 1))).toEqual([]);
  expect(await repo.markRecovered(e.id, 1)).toBe(false); // ended
});

test('unfinished runs page through both statuses in order, without repeats', async () => {
  const base = new Date(now.getTime() + 60_000);
  const made: ExecutionRecord[] = [];
  for (let i = 0; i < 5; i++)
    made.push(
      await repo.create(
        { kind: 'http_schedule', schedule_id: 's-page', ...owner, payload: i, max_attempts: 1 },
        new Date(base.getTime() + i),
      ),
    );
  for (const e of made.slice(3)) await repo.claim(e.id, new Date(base.getTime() + 10), { claimant: 'job-a' });
  const seen: string[] = [];
  let cursor: string | undefined;
  const bound = new Date(base.getTime() + 1000);
  do {
    const page = await repo.unfinished({ queuedBefore: bound, runningBefore: bound, limit: 2, cursor });
    seen.push(
      ...page.runs
        .filter((r) => made.some((m) => m.id === r.id))
        .map((r) => `${r.status}:${r.queue}:${made.findIndex((m) => m.id === r.id)}`),
    );
    cursor = page.next;
  } while (cursor);
  expect(seen).toEqual([
    'queued:http-calls:0',
    'queued:http-calls:1',
    'queued:http-calls:2',
    'running:http-calls:3',
    'running:http-calls:4',
  ]);
});

test('an attempt that a store outage interrupted resumes without spending another attempt', async () => {
  const e = await newWebhookRun();
  expect(await repo.claim(e.id, now, { claimant: 'job-a' })).toMatchObject({ status: 'running', attempt: 1 });
  expect(await repo.claim(e.id, now, { claimant: 'job-a', resumeAttempt: 1 })).toMatchObject({
    status: 'running',
    attempt: 1,
  });
  expect(await repo.claim(e.id, now, { claimant: 'job-b', resumeAttempt: 7 })).toMatchObject({
    status: 'running',
    attempt: 2,
  }); // not at that attempt: a new one
});

test('the same claimant claiming again (its reply was lost) gets the attempt it started, not another', async () => {
  const e = await newWebhookRun();
  expect(await repo.claim(e.id, now, { claimant: 'job-a' })).toMatchObject({ status: 'running', attempt: 1 });
  expect(await repo.claim(e.id, now, { claimant: 'job-a' })).toMatchObject({ status: 'running', attempt: 1 });
  expect(await repo.claim(e.id, now, { claimant: 'job-b' })).toMatchObject({ status: 'running', attempt: 2 });
  await repo.finish(e.id, 2, ok, now, now);
  expect(await repo.claim(e.id, now, { claimant: 'job-b' })).toBeNull(); // ended: nothing to resume
});

test('concurrent claims and finishes: exactly one attempt ends the execution', async () => {
  const e = await newWebhookRun();
  const claimed = await repo.claim(e.id, now, { claimant: 'job-a' });
  expect(claimed).toMatchObject({ status: 'running', attempt: 1 });
  const finishes = await Promise.all(
    Array.from({ length: 8 }, () => repo.finish(e.id, 1, ok, new Date(now.getTime() + 1500), now)),
  );
  expect(finishes.filter((f) => f !== null)).toHaveLength(1);
  const final = await repo.get(e.id);
  expect(final).toMatchObject({ status: 'succeeded', success: true, duration_ms: 1500, response_output: 'done' });
  expect(await repo.claim(e.id, now, { claimant: 'job-c' })).toBeNull();
});

test('a redelivered job takes over a running attempt; the old attempt can no longer finish', async () => {
  const e = await newWebhookRun();
  await repo.claim(e.id, now, { claimant: 'job-a' });
  const second = await repo.claim(e.id, now, { claimant: 'job-b' });
  expect(second?.attempt).toBe(2);
  expect(await repo.finish(e.id, 1, ok, now, now)).toBeNull();
  expect(await repo.finish(e.id, 2, { ...ok, success: false, error_message: 'boom' }, now, now)).toMatchObject({
    status: 'failed',
    attempt: 2,
    error_message: 'boom',
  });
});

test('fires asking together whether their schedule has a run not ended get each their own answer', async () => {
  const other = { user_id: 'u2', org_id: 'o1' };
  const scheduleRun = (scheduleId: string, who = owner) =>
    repo.create({ kind: 'http_schedule', schedule_id: scheduleId, ...who, payload: null, max_attempts: 1 }, now);
  const [queued, running, ended] = [
    await scheduleRun('s-queued'),
    await scheduleRun('s-running'),
    await scheduleRun('s-ended'),
  ];
  await repo.claim(running.id, now, { claimant: 'job-a' });
  await repo.claim(ended.id, now, { claimant: 'job-a' });
  await repo.finish(ended.id, 1, ok, now, now);
  await scheduleRun('s-others', other); // another owner's run of a schedule of that id is not this owner's
  // A schedule with more runs waiting than one query returns still answers (and does not hide the others' answers).
  for (let i = 0; i < 30; i++) await scheduleRun('s-many');
  expect(queued.status).toBe('queued');
  const asks: [typeof owner, string][] = [
    [owner, 's-queued'],
    [owner, 's-running'],
    [owner, 's-ended'],
    [owner, 's-others'],
    [other, 's-others'],
    [owner, 's-many'],
    [owner, 's-none'],
    [other, 's-queued'],
  ];
  const answers = await Promise.all(asks.map(([who, id]) => repo.hasUnfinishedRun(who, id)));
  expect(answers).toEqual([true, true, false, false, true, true, false, false]);
  // Asked alone, the same answers.
  for (const [i, [who, id]] of asks.entries()) expect(await repo.hasUnfinishedRun(who, id)).toBe(answers[i]);
});

test('retryLater puts the execution back in the queue with the attempt’s error', async () => {
  const e = await newWebhookRun();
  await repo.claim(e.id, now, { claimant: 'job-a' });
  expect(await repo.retryLater(e.id, 1, { ...ok, success: false, response_status: 503, error_message: 'busy' })).toBe(
    true,
  );
  expect(await repo.get(e.id)).toMatchObject({
    status: 'queued',
    attempt: 1,
    error_message: 'busy',
    response_status: 503,
  });
  expect((await repo.claim(e.id, now, { claimant: 'job-b' }))?.attempt).toBe(2);
});

test('response_output is capped at 64 KiB', async () => {
  const e = await newWebhookRun();
  await repo.claim(e.id, now, { claimant: 'job-a' });
  const done = await repo.finish(e.id, 1, { ...ok, response_output: 'é'.repeat(40_000) }, now, now);
  expect(Buffer.byteLength(done?.response_output ?? '', 'utf8')).toBeLessThanOrEqual(64 * 1024);
  expect(capUtf8('aé', 2)).toBe('a');
});

test('list filters by webhook and success, newest first, and counts every match', async () => {
  const other = { user_id: 'u2', org_id: 'o1' };
  await repo.create({ kind: 'webhook', webhook_id: 'w9', ...other, payload: null, max_attempts: 1 }, now);
  const all = await repo.list(owner, { webhook_id: 'w1', skip: 0, limit: 2 });
  expect(all.items).toHaveLength(2);
  expect(all.total).toBeGreaterThan(2);
  const succeeded = await repo.list(owner, { webhook_id: 'w1', success: true, skip: 0, limit: 50 });
  expect(succeeded.items.every((x) => x.success === true)).toBe(true);
  expect((await repo.list(owner, { webhook_id: 'w9', skip: 0, limit: 50 })).total).toBe(0); // another owner's
});

test('an idempotency key is claimed once under concurrency and forgotten after 24 h', async () => {
  const store = createIdempotencyStore(conn);
  await store.init();
  const holders = await Promise.all(['e1', 'e2', 'e3', 'e4'].map((id) => store.claim('w1', 'key-1', id, now)));
  expect(new Set(holders).size).toBe(1);
  expect(await store.claim('w2', 'key-1', 'e5', now)).toBe('e5'); // scopes are separate
  const dayLater = new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS + 1);
  expect(await store.claim('w1', 'key-1', 'e6', dayLater)).toBe('e6');
});

test('idempotency keys past their window are removed by the TTL index', async () => {
  const store = createIdempotencyStore(conn);
  await store.init();
  const past = new Date(Date.now() - IDEMPOTENCY_WINDOW_MS - 60_000);
  await store.claim('w3', 'old-key', 'e7', past);
  await store.claim('w3', 'new-key', 'e8', new Date());
  await expireNow(conn);
  const keys = conn.collection('idempotency_keys');
  expect(await keys.countDocuments({ execution_id: 'e8' })).toBe(1);
  // MongoDB's TTL monitor runs once a minute; the development server's sweep ran just now.
  if (process.env.STORE_SERVER === 'ferretdb') expect(await keys.countDocuments({ execution_id: 'e7' })).toBe(0);
});
