import { privateRedis, type PrivateRedis } from '@platform/testing';

import { startTriggerStack, type TriggerStack } from './trigger-stack';

// Its own Redis, which this file stops and restarts; the worker's lock is short so a killed worker's job returns fast.
let redis: PrivateRedis;
let s: TriggerStack;
beforeAll(async () => {
  redis = await privateRedis();
  s = await startTriggerStack({ redisUrl: redis.url, workerEnv: { JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '1000' } });
}, 60_000);
afterAll(async () => {
  await redis.start().catch(() => undefined);
  await s.close();
  await redis.stop();
}, 30_000);

it('Redis stopped: the trigger is still accepted, and the run completes once Redis is back', async () => {
  await redis.stop();
  const started = Date.now();
  const res = await s.trigger('{"during":"outage"}');
  expect(res.status).toBe(202);
  expect(Date.now() - started).toBeLessThan(3_000);
  const stored = await s.execution(res.body.execution_id);
  expect(stored).toMatchObject({ status: 'queued', attempt: 0 });

  await redis.start();
  let moved = 0;
  for (let i = 0; i < 50 && moved === 0; i++) {
    moved = await s.sweepOutbox();
    if (moved === 0) await new Promise((r) => setTimeout(r, 200));
  }
  expect(moved).toBe(1);
  const done = await s.waitEnded(res.body.execution_id, 30_000);
  expect(done).toMatchObject({ status: 'succeeded', attempt: 1, response_output: 'echo: {"during":"outage"}' });
  expect(await s.sweepOutbox()).toBe(0);
}, 60_000);

it('the worker killed mid-run: the execution ends exactly once, on the next worker, attempts recorded', async () => {
  s.llm.script('hang'); // the first provider call never answers
  const res = await s.trigger('{"long":"job"}');
  expect(res.status).toBe(202);
  const deadline = Date.now() + 10_000;
  while (s.llm.requests.filter((r) => r.body.includes('long')).length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  expect((await s.execution(res.body.execution_id))?.status).toBe('running');
  const first = s.workers[0]!;
  first.child.kill('SIGKILL');
  await first.stop(0);

  await s.startWorker();
  const done = await s.waitEnded(res.body.execution_id, 30_000);
  expect(done).toMatchObject({ status: 'succeeded', success: true, attempt: 2 });
  const ended = await s.execution(res.body.execution_id);
  expect(ended?.finished_at).toBe(done.finished_at);
  expect(s.llm.requests.filter((r) => r.body.includes('long'))).toHaveLength(2);
}, 60_000);
