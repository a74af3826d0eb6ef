import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import request from 'supertest';

import { IORedis } from '@platform/queue';
import { fireJobId } from '@platform/scheduling';
import { privateRedis, startServiceProcess, testInfra, utcDayAhead, type PrivateRedis } from '@platform/testing';

import { startScheduleStack, type ScheduleStack } from './schedule-stack';

// FLUSHALL needs a Redis of this file's own.
let redis: PrivateRedis;
let s: ScheduleStack;

beforeAll(async () => {
  redis = await privateRedis();
  s = await startScheduleStack({ redisUrl: redis.url });
  await s.startWorker();
}, 60_000);
afterAll(async () => {
  await s.close();
  await redis.stop();
}, 30_000);

// Instants derived from the real now and ahead of it (BullMQ's delays run on the real clock).
const day = utcDayAhead(1);
const isoOf = (d: Date) => d.toISOString();
const send = (method: 'post' | 'delete', path: string) => request(s.t.app)[method](path).set('x-api-key', s.key);

it('after FLUSHALL, reconcile restores every active schedule exactly once, catches up the fire that was due, and then writes nothing', async () => {
  s.t.setClock(day('10:07:30'));
  const active = [];
  for (let i = 0; i < 4; i++) active.push(await s.createHttp({ cron_expression: '*/5 * * * *' }));
  const paused = await s.createHttp();
  await send('post', `/http-schedules/${paused}/pause`);
  const deleted = await s.createHttp();

  const flush = new IORedis(redis.url);
  await flush.flushall();
  expect(await s.t.queues.fires.getJobSchedulersCount()).toBe(0);
  // Deleted while Redis was empty (nothing to remove), and the clock passes 10:10, a fire Redis no longer had.
  await send('delete', `/http-schedules/${deleted}`);
  s.t.setClock(day('10:10:20'));

  // Two scheduler replicas reconcile at once.
  const [a, b] = await Promise.all([s.reconcile(), s.reconcile()]);
  expect(a.active).toBe(4);
  expect(b.active).toBe(4);
  const schedulers = await s.t.queues.fires.getJobSchedulers(0, -1);
  expect(schedulers.map((j) => j.key).sort()).toEqual([...active].sort());
  const delayed = await s.t.queues.fires.getDelayed();
  expect(delayed.map((j) => j.id).sort()).toEqual(active.map((id) => fireJobId(id, day('10:15').getTime())).sort());

  // The 10:10 fire of each active schedule runs once (both replicas queued it; the fire key keeps one).
  for (const id of active) {
    const runs = await s.waitEnded(id, 1);
    expect(runs.map((r) => [r.scheduled_for, r.status])).toEqual([[isoOf(day('10:10')), 'succeeded']]);
  }
  expect(await s.executionsOf(paused)).toHaveLength(0);

  const again = await s.reconcile();
  expect(again).toEqual({ active: 4, upserted: 0, removed: 0, caughtUp: 0 });
  await new Promise((r) => setTimeout(r, 500));
  for (const id of active) expect(await s.executionsOf(id)).toHaveLength(1);
  await flush.quit();
});

it('removes a scheduler whose schedule is gone or paused in MongoDB (an orphan left by an outage)', async () => {
  const id = await s.createHttp();
  const orphan = 'f'.repeat(24);
  await s.t.queues.fires.upsertJobScheduler(
    orphan,
    { pattern: '* * * * *' },
    { name: 'fire', data: { schedule_id: orphan } },
  );
  const report = await s.reconcile();
  expect(report.removed).toBe(1);
  expect(await s.t.queues.fires.getJobScheduler(orphan)).toBeUndefined();
  expect(await s.t.queues.fires.getJobScheduler(id)).toBeDefined();
});

it('a schedule whose cron changed while Redis was away is brought in line', async () => {
  const id = await s.createHttp({ cron_expression: '*/5 * * * *' });
  await s.t.queues.fires.upsertJobScheduler(
    id,
    { pattern: '0 0 * * *', tz: 'UTC' },
    { name: 'fire', data: { schedule_id: id } },
  );
  const report = await s.reconcile();
  expect(report.upserted).toBe(1);
  expect(await s.t.queues.fires.getJobScheduler(id)).toMatchObject({ pattern: '*/5 * * * *' });
});

it('the scheduler process reconciles on its own: at start, and again after Redis loses everything', async () => {
  const id = await s.createHttp({ cron_expression: '0 * * * *' });
  const flush = new IORedis(redis.url);
  await flush.flushall();
  const proc = await startServiceProcess({
    script: resolve(__dirname, '../dist/main.js'),
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: s.t.dbs.conn.name,
      AUTH_DB: s.t.dbs.authDb,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: s.t.prefix,
      AGENT_SERVICE_URL: s.t.agentServiceUrl,
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      SCHEDULE_SECRET_ENCRYPTION_KEY: s.t.scheduleKeyHex,
      RECONCILE_INTERVAL_MS: '1000',
      LOG_LEVEL: 'warn',
    },
  });
  try {
    const present = async () => (await s.t.queues.fires.getJobScheduler(id)) !== undefined;
    await until(present, 10_000);
    await flush.flushall();
    expect(await present()).toBe(false);
    await until(present, 10_000);
    expect((await s.t.queues.fires.getDelayed()).filter((j) => String(j.id).startsWith(`repeat:${id}:`))).toHaveLength(
      1,
    );
  } finally {
    await proc.stop();
    await flush.quit();
  }
}, 60_000);

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reconciled in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}
