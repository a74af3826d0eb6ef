import request from 'supertest';

import { QUEUE_NAMES } from '@platform/queue';
import { addFire, fireJobId, firesBetween } from '@platform/scheduling';
import { nextDstChange, utcDayAhead, wallTimeIn } from '@platform/testing';

import { createApp } from '../src/app';
import { startScheduleStack, type ScheduleStack, type WorkerHandle } from './schedule-stack';

// Every instant is derived from the real now and lies ahead of it: BullMQ's delays run on the real clock, and the
// app's clock (which the fire computation follows) is moved to these instants, never behind the real one.
const HOUR = 3_600_000;
const isoOf = (ms: number | Date) => new Date(ms).toISOString();
const day = utcDayAhead(1);
const nextDay = utcDayAhead(2);

let s: ScheduleStack;
let w1: WorkerHandle;
let w2: WorkerHandle;

beforeAll(async () => {
  s = await startScheduleStack();
  [w1, w2] = await Promise.all([s.startWorker(), s.startWorker()]);
}, 60_000);
afterAll(() => s.close(), 30_000);
beforeEach(() => {
  s.t.setClock(new Date());
  s.setTarget((_req, res) => res.end('ok'));
});

const api = () => request(s.t.app);
const send = (method: 'post' | 'patch' | 'delete', path: string, body?: object) =>
  api()[method](path).set('x-api-key', s.key).send(body);

describe('fire times in Redis', () => {
  it('one job scheduler per schedule, whose next job is the next fire in the schedule zone', async () => {
    // India has no daylight saving: 09:00 there is 03:30 UTC, the next one being the following day's.
    s.t.setClock(day('10:07'));
    const id = await s.createHttp({ cron_expression: '0 9 * * *', timezone: 'Asia/Calcutta' });
    const scheduler = await s.t.queues.fires.getJobScheduler(id);
    expect(scheduler).toMatchObject({ pattern: '0 9 * * *', tz: 'Asia/Calcutta' });
    const job = await s.nextFireJob(id);
    expect(job?.id).toBe(fireJobId(id, nextDay('03:30').getTime()));
    const read = await api().get(`/http-schedules/${id}`).set('x-api-key', s.key);
    expect(read.body.next_run_time).toBe(isoOf(nextDay('03:30')));
  });

  it('a fire inside the spring-forward gap runs once, at the end of the gap; the next one is the next day', async () => {
    // America/New_York's next spring-forward: at 02:00 EST the clocks jump to 03:00 EDT; 02:30 does not exist that day.
    const change = nextDstChange('America/New_York', 'forward');
    expect(wallTimeIn(change.getTime(), 'America/New_York')).toBe('03:00');
    s.t.setClock(new Date(change.getTime() - 19 * HOUR));
    const id = await s.createHttp({ cron_expression: '30 2 * * *', timezone: 'America/New_York' });
    const fire = await s.fireNow(id);
    expect(isoOf(fire)).toBe(isoOf(change)); // 03:00 EDT, the end of the gap
    const [run] = await s.waitEnded(id, 1);
    expect(run).toMatchObject({ status: 'succeeded', scheduled_for: isoOf(change), kind: 'http_schedule' });
    const next = await s.nextFireJob(id);
    expect(next?.id).toBe(fireJobId(id, change.getTime() + 23.5 * HOUR)); // 02:30 EDT the next day
  });

  it('a fire inside the repeated fall-back hour runs once, on its first pass', async () => {
    // America/New_York's next fall-back: at 02:00 EDT the clocks go back to 01:00 EST; 01:30 happens twice.
    const change = nextDstChange('America/New_York', 'back');
    expect(wallTimeIn(change.getTime(), 'America/New_York')).toBe('01:00');
    s.t.setClock(new Date(change.getTime() - 18 * HOUR));
    const id = await s.createHttp({ cron_expression: '30 1 * * *', timezone: 'America/New_York' });
    const fire = await s.fireNow(id);
    expect(isoOf(fire)).toBe(isoOf(change.getTime() - HOUR / 2)); // 01:30 EDT
    await s.waitEnded(id, 1);
    const next = await s.nextFireJob(id);
    expect(next?.id).toBe(fireJobId(id, change.getTime() + 24.5 * HOUR)); // 01:30 EST the next day, not the same day's
    // A late or duplicated delivery of the second pass is not a fire of this cron: dropped, nothing runs.
    await addFire(s.t.queues.fires, id, change.getTime() + HOUR / 2, 2_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await s.executionsOf(id)).toHaveLength(1);
  });
});

describe('a fire queue that is behind', () => {
  it('a fire taken after later fires fell due runs once, stands for them (logged), and the next fire is the next one from now', async () => {
    s.t.setClock(day('10:07'));
    const id = await s.createHttp({ cron_expression: '*/5 * * * *' });
    s.t.setClock(day('10:21')); // 10:10, 10:15 and 10:20 are all due; Redis holds the 10:10 job
    const fire = await s.fireNow(id);
    expect(isoOf(fire)).toBe(isoOf(day('10:10')));
    expect((await s.waitEnded(id, 1)).map((e) => e.scheduled_for)).toEqual([isoOf(day('10:10'))]);
    expect((await s.nextFireJob(id))?.id).toBe(fireJobId(id, day('10:25').getTime()));
    const line = s.workerLines.find((l) => l.includes('fire taken late') && l.includes(id));
    expect(line && JSON.parse(line)).toMatchObject({ coalesced: 2, fire_at: isoOf(day('10:10')) });
  });
});

describe('pause, resume, change, delete', () => {
  it('pause removes the firing from Redis and a fire still in flight runs nothing; resume restarts it', async () => {
    const id = await s.createHttp();
    const hitsBefore = s.target.requests.length;
    const pending = (await s.nextFireJob(id))!;
    expect((await send('post', `/http-schedules/${id}/pause`)).status).toBe(200);
    expect(await s.t.queues.fires.getJobScheduler(id)).toBeUndefined();
    expect(await s.nextFireJob(id)).toBeUndefined();
    // The fire that was pending arrives anyway (a replica raced the pause): MongoDB says paused, so it is dropped.
    await addFire(s.t.queues.fires, id, Number(String(pending.id).split(':')[2]), 2_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await s.executionsOf(id)).toHaveLength(0);
    expect(s.target.requests.length).toBe(hitsBefore);

    const resumed = await send('post', `/http-schedules/${id}/resume`);
    expect(resumed.body.is_active).toBe(true);
    expect(await s.t.queues.fires.getJobScheduler(id)).toBeDefined();
    await s.fireNow(id);
    expect((await s.waitEnded(id, 1))[0]?.status).toBe('succeeded');
  });

  it('a cron change replaces the firing (one next job, of the new cron); delete leaves nothing behind', async () => {
    s.t.setClock(day('10:07'));
    const id = await s.createHttp({ cron_expression: '*/5 * * * *' });
    expect((await s.nextFireJob(id))?.id).toBe(fireJobId(id, day('10:10').getTime()));
    // Tokyo has no daylight saving: 20:00 there is 11:00 UTC, later the same day.
    const changed = await send('patch', `/http-schedules/${id}`, {
      cron_expression: '0 20 * * *',
      timezone: 'Asia/Tokyo',
    });
    expect(changed.status).toBe(200);
    expect(changed.body.next_run_time).toBe(isoOf(day('11:00')));
    const delayed = (await s.t.queues.fires.getDelayed()).filter((j) => String(j.id).startsWith(`repeat:${id}:`));
    expect(delayed.map((j) => j.id)).toEqual([fireJobId(id, day('11:00').getTime())]);
    expect(await s.t.queues.fires.getJobScheduler(id)).toMatchObject({ pattern: '0 20 * * *', tz: 'Asia/Tokyo' });
    // A fire of the old cron still in flight is not a time of the new one: dropped.
    await addFire(s.t.queues.fires, id, day('10:10').getTime(), 2_000);

    expect((await send('delete', `/http-schedules/${id}`)).status).toBe(204);
    expect(await s.t.queues.fires.getJobScheduler(id)).toBeUndefined();
    expect(await s.nextFireJob(id)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await s.executionsOf(id)).toHaveLength(0);
  });
});

describe('runs', () => {
  it('overlap_policy skip records a skipped execution while the previous run is going; allow runs both', async () => {
    let release = () => undefined as void;
    const gate = new Promise<void>((r) => (release = r));
    s.setTarget(async (_req, res) => {
      await gate;
      res.end('late');
    });
    s.t.setClock(day('10:07'));
    const skip = await s.createHttp({ cron_expression: '*/5 * * * *', overlap_policy: 'skip' });
    const allow = await s.createHttp({ cron_expression: '*/5 * * * *', overlap_policy: 'allow' });
    for (const id of [skip, allow]) {
      const first = await s.fireNow(id);
      await waitFor(
        async () => (await s.executionsOf(id))[0]?.status === 'running',
        10_000,
        () => s.executionsOf(id),
      );
      await addFire(s.t.queues.fires, id, firesBetween('*/5 * * * *', 'UTC', first, first + 600_000)[0]!, 2_000);
    }
    await waitFor(async () => (await s.executionsOf(skip)).length === 2 && (await s.executionsOf(allow)).length === 2);
    const skipped = (await s.executionsOf(skip))[1]!;
    expect(skipped).toMatchObject({ status: 'skipped', success: null, scheduled_for: isoOf(day('10:15')) });
    expect(skipped.error_message).toMatch(/overlap/);
    release();
    expect((await s.waitEnded(skip, 2)).map((e) => e.status).sort()).toEqual(['skipped', 'succeeded']);
    expect((await s.waitEnded(allow, 2)).map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('a failed run is retried max_retries times, retry_delay apart, each attempt on the same execution', async () => {
    const hits: number[] = [];
    s.setTarget((_req, res) => {
      hits.push(Date.now());
      res.statusCode = hits.length < 3 ? 500 : 200;
      res.end(hits.length < 3 ? 'boom' : 'fine');
    });
    const id = await s.createHttp({ max_retries: 3, retry_delay: 1 });
    await s.fireNow(id);
    const [run] = await s.waitEnded(id, 1, 20_000);
    expect(run).toMatchObject({
      status: 'succeeded',
      success: true,
      attempt: 3,
      max_attempts: 4,
      response_status: 200,
      response_output: 'fine',
    });
    expect(hits).toHaveLength(3);
    for (let i = 1; i < hits.length; i++) expect(hits[i]! - hits[i - 1]!).toBeGreaterThanOrEqual(900);

    s.setTarget((_req, res) => {
      res.statusCode = 503;
      res.end('down');
    });
    const failing = await s.createHttp({ max_retries: 1, retry_delay: 1 });
    await s.fireNow(failing);
    const [failed] = await s.waitEnded(failing, 1, 20_000);
    expect(failed).toMatchObject({
      status: 'failed',
      success: false,
      attempt: 2,
      response_status: 503,
      error_message: 'endpoint answered 503',
    });
    // The run counts once, when it ends, whatever its attempts: run_count 1, last_run_at = when the fire was handled.
    await waitFor(
      async () =>
        (await api().get(`/http-schedules/${failing}`).set('x-api-key', s.key)).body.last_run_success === false,
    );
    const read = await api().get(`/http-schedules/${failing}`).set('x-api-key', s.key);
    expect(read.body).toMatchObject({ run_count: 1, last_run_at: failed!.triggered_at });
  });

  it('two workers and two schedulers: each fire runs exactly once, even when delivered twice at once', async () => {
    const second = createApp(s.t.deps); // another scheduler replica over the same database and Redis
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const app = i % 2 ? second : s.t.app;
      const res = await request(app)
        .post('/http-schedules/')
        .set('x-api-key', s.key)
        .send({ name: `n${i}`, url: `${s.target.url}/x?i=${i}`, cron_expression: '* * * * *' });
      ids.push(res.body.id);
    }
    const reports = await Promise.all([s.reconcile(), s.reconcile()]);
    expect(reports.map((r) => r.caughtUp)).toEqual([0, 0]);
    const before = s.target.requests.length;
    await Promise.all(
      ids.map(async (id) => {
        const job = (await s.nextFireJob(id))!;
        const fireMs = Number(String(job.id).split(':')[2]);
        // The same fire twice under different job ids (as a repair racing the scheduler would), promoted together.
        await s.t.queues.fires.add('fire', { schedule_id: id, fire_at: fireMs }, { jobId: `dup:${id}:${fireMs}` });
        await job.promote();
      }),
    );
    for (const id of ids) {
      const runs = await s.waitEnded(id, 1);
      expect(runs).toHaveLength(1);
    }
    await new Promise((r) => setTimeout(r, 1_000));
    for (const id of ids) expect(await s.executionsOf(id)).toHaveLength(1);
    expect(s.target.requests.length - before).toBe(ids.length);
    // Both workers took part in the race, each with a consumer per queue.
    expect(w1.runtime.consumers.workers.length + w2.runtime.consumers.workers.length).toBe(
      2 * Object.keys(QUEUE_NAMES).length,
    );
  });
});

async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs = 10_000,
  state?: () => Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`condition not met in time ${state ? JSON.stringify(await state()) : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
