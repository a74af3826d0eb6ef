import { addFire, nextFire, type ExecutionRecord, type ScheduleRecord } from '@platform/scheduling';

import { eventually, startWorkerStack, type WorkerStack } from './worker-stack';

/**
 * An HTTP schedule's fire makes its run's first attempt itself (FIRE_DIRECT_RUNS at once per process): the execution
 * is stored already claimed and no job goes through `http-calls`, unless a retry or the limit sends it there.
 * Instants are derived from the real now.
 */
const DAILY = '30 6 * * *';
const ZONE = 'UTC';

let s: WorkerStack;
let limited: WorkerStack;

beforeAll(async () => {
  [s, limited] = await Promise.all([startWorkerStack(), startWorkerStack({ fireDirectRuns: 1 })]);
}, 60_000);
afterAll(() => Promise.all([s?.close(), limited?.close()]), 60_000);

const nextDaily = () => nextFire(DAILY, ZONE, Date.now())!;

const hits = (stack: WorkerStack, path: string) => stack.target.requests.filter((r) => r.url.split('?')[0] === path);

/** Waits until the schedule's one execution has ended. */
const ended = (stack: WorkerStack, schedule: ScheduleRecord) =>
  eventually(`the run of ${schedule.id}`, async () => {
    const [run, ...more] = await stack.executionsOf(schedule.id);
    return run && more.length === 0 && ['succeeded', 'failed'].includes(run.status) ? run : undefined;
  });

/** The run's job on `http-calls`, if one was ever added (completed jobs are kept by the stack's queues). */
const runJob = (stack: WorkerStack, exec: ExecutionRecord) => stack.queues.httpCalls.getJob(exec.id);

const httpSchedule = (stack: WorkerStack, path: string, opts: { max_retries?: number; retry_delay?: number } = {}) =>
  stack.createHttpSchedule(
    { url: `${stack.target.url}${path}`, method: 'GET' },
    { cron_expression: DAILY, timezone: ZONE, ...opts },
  );

it('a fire calls the endpoint itself: one attempt, started when stored, no run job', async () => {
  s.setTarget((_req, res) => res.end('direct'));
  const schedule = await httpSchedule(s, '/direct');
  await addFire(s.fires, schedule.id, nextDaily(), 2_000);
  const run = await ended(s, schedule);
  expect(run).toMatchObject({ status: 'succeeded', attempt: 1, response_status: 200, response_output: 'direct' });
  expect(run.started_at).toBe(run.triggered_at);
  expect(hits(s, '/direct')).toHaveLength(1);
  expect(await runJob(s, run)).toBeUndefined();
  // The worker logs the line after it stores the run's end and queues its callback: the test may see the end first.
  await eventually(
    'the run attempt succeeded line',
    () => s.lines.some((l) => l.includes('run attempt succeeded') && l.includes(run.id)) || undefined,
  );
});

it('a failed first attempt is retried through http-calls after retry_delay, then succeeds', async () => {
  const times: number[] = [];
  s.setTarget((_req, res) => {
    times.push(Date.now());
    res.statusCode = times.length === 1 ? 503 : 200;
    res.end(times.length === 1 ? 'busy' : 'fine');
  });
  const schedule = await httpSchedule(s, '/flaky', { max_retries: 2, retry_delay: 1 });
  await addFire(s.fires, schedule.id, nextDaily(), 2_000);
  const run = await ended(s, schedule);
  expect(run).toMatchObject({ status: 'succeeded', attempt: 2, max_attempts: 3, response_output: 'fine' });
  expect(hits(s, '/flaky')).toHaveLength(2);
  expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  expect(await (await runJob(s, run))?.getState()).toBe('completed');
});

it('a failed first attempt with no retries left ends the run failed, with no run job', async () => {
  s.setTarget((_req, res) => {
    res.statusCode = 500;
    res.end('down');
  });
  const schedule = await httpSchedule(s, '/down', { max_retries: 0 });
  await addFire(s.fires, schedule.id, nextDaily(), 2_000);
  const run = await ended(s, schedule);
  expect(run).toMatchObject({ status: 'failed', attempt: 1, response_status: 500 });
  expect(hits(s, '/down')).toHaveLength(1);
  expect(await runJob(s, run)).toBeUndefined();
});

it('beyond FIRE_DIRECT_RUNS in flight, a fire queues its run on http-calls as before', async () => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  limited.setTarget((req, res) => {
    if (req.url.startsWith('/slow')) void held.then(() => res.end('slow'));
    else res.end('quick');
  });
  const slow = await httpSchedule(limited, '/slow');
  const quick = await httpSchedule(limited, '/quick');
  const fireMs = nextDaily();
  await addFire(limited.fires, slow.id, fireMs, 2_000);
  await eventually('the slow call under way', async () => (hits(limited, '/slow').length === 1 ? true : undefined));
  await addFire(limited.fires, quick.id, fireMs, 2_000);
  const quickRun = await ended(limited, quick);
  release();
  const slowRun = await ended(limited, slow);
  expect([slowRun.status, quickRun.status]).toEqual(['succeeded', 'succeeded']);
  expect(await runJob(limited, slowRun)).toBeUndefined();
  expect(await (await runJob(limited, quickRun))?.getState()).toBe('completed');
  expect(hits(limited, '/quick')).toHaveLength(1);
});
