import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import request from 'supertest';

import { startServiceProcess, testInfra, type ServiceProcess } from '@platform/testing';

import { createApp } from '../src/app';
import { startScheduleStack, type ScheduleStack } from './schedule-stack';

// On the real clock: schedules firing every minute, two worker processes and two scheduler replicas. Half of them
// keep New York time: run at a daylight-saving change (`pnpm test:any-date` does), their fire lands on the change.
let s: ScheduleStack;
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  s = await startScheduleStack();
  for (let i = 0; i < 2; i++) {
    workers.push(
      await startServiceProcess({
        script: resolve(__dirname, '../../worker/dist/main.js'),
        env: {
          MONGODB_URI: testInfra.mongoUri,
          MONGODB_DB: s.t.dbs.conn.name,
          REDIS_URL: testInfra.redisUrl,
          QUEUE_PREFIX: s.t.prefix,
          AGENT_SERVICE_URL: s.t.agentServiceUrl,
          INTERNAL_SERVICE_SECRET: randomBytes(32).toString('hex'),
          SCHEDULE_SECRET_ENCRYPTION_KEY: s.t.scheduleKeyHex,
          OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${s.target.port}`,
          LOG_LEVEL: 'warn',
        },
      }),
    );
  }
}, 90_000);
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop(2_000)));
  await s.close();
}, 30_000);

it('every schedule fires once at the next minute, with the nominal time, however many replicas run', async () => {
  // Creation must not straddle a minute boundary (a schedule made before it would fire one minute earlier).
  const toBoundary = 60_000 - (Date.now() % 60_000);
  if (toBoundary < 8_000) await new Promise((r) => setTimeout(r, toBoundary + 100));
  const replica = createApp(s.t.deps);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await request(i % 2 ? replica : s.t.app)
      .post('/http-schedules/')
      .set('x-api-key', s.key)
      .send({
        name: `every-minute-${i}`,
        url: `${s.target.url}/tick?i=${i}`,
        cron_expression: '* * * * *',
        timezone: i < 2 ? 'UTC' : 'America/New_York',
      });
    ids.push(res.body.id);
  }
  await Promise.all([s.reconcile(), s.reconcile()]);
  const fire = Math.ceil((Date.now() + 1) / 60_000) * 60_000;
  const hitsBefore = s.target.requests.length;

  // Wait past the fire (and its processing); the following fire is a minute later, out of this window.
  const deadline = fire + 20_000;
  for (;;) {
    const runs = await Promise.all(ids.map((id) => s.executionsOf(id)));
    if (runs.every((r) => r.some((e) => e.status === 'succeeded')) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  for (const id of ids) {
    const runs = await s.executionsOf(id);
    expect(runs.map((e) => [e.scheduled_for, e.status])).toEqual([[new Date(fire).toISOString(), 'succeeded']]);
    const lagMs = new Date(runs[0]!.started_at!).getTime() - fire;
    expect(lagMs).toBeGreaterThanOrEqual(0);
  }
  expect(s.target.requests.length - hitsBefore).toBe(ids.length);
  // Each schedule's next fire is already waiting in Redis: exactly one, a minute later.
  for (const id of ids) {
    const delayed = (await s.t.queues.fires.getDelayed()).filter((j) => String(j.id).startsWith(`repeat:${id}:`));
    expect(delayed.map((j) => Number(String(j.id).split(':')[2]))).toEqual([fire + 60_000]);
  }
}, 120_000);
