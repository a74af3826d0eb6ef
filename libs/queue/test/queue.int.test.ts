import { randomBytes } from 'node:crypto';

import {
  addWithin,
  closeWithin,
  createQueue,
  createWorker,
  EnqueueTimeoutError,
  pingRedis,
  producerConnection,
  workerConnection,
  type RedisConnection,
} from '@platform/queue';
import { freePort, testInfra } from '@platform/testing';

const name = `test-${randomBytes(4).toString('hex')}`;
const conns: RedisConnection[] = [];
const conn = (c: RedisConnection) => (conns.push(c), c);

afterAll(async () => {
  await Promise.all(conns.map((c) => c.quit().catch(() => c.disconnect())));
});

test('a job added by a producer is processed once by a worker, and retention is bounded', async () => {
  const queue = createQueue<{ n: number }>(name, conn(producerConnection(testInfra.redisUrl)));
  const seen: number[] = [];
  const worker = createWorker<{ n: number }>(
    name,
    async (job) => {
      seen.push(job.data.n);
      return job.data.n * 2;
    },
    conn(workerConnection(testInfra.redisUrl)),
    { concurrency: 2 },
  );
  const done = new Promise<void>((resolve) => worker.on('completed', () => seen.length === 3 && resolve()));
  // The adds' deadline is for the add, not for the first connection (slow on a loaded machine).
  await queue.waitUntilReady();
  const ids = await Promise.all([1, 2, 3].map((n) => addWithin(queue, 2_000, 'run', { n }, { jobId: `job-${n}` })));
  expect(ids).toEqual(['job-1', 'job-2', 'job-3']);
  await addWithin(queue, 2_000, 'run', { n: 1 }, { jobId: 'job-1' }); // same id: deduplicated by BullMQ
  await done;
  expect(seen.sort()).toEqual([1, 2, 3]);
  expect(queue.defaultJobOptions.removeOnComplete).toEqual({ count: 1000, age: 86400 });
  expect(worker.opts.maxStalledCount).toBe(1);
  expect(
    await closeWithin(
      5_000,
      () => worker.close(),
      () => queue.close(),
    ),
  ).toBe(true);
  await queue.obliterate({ force: true }).catch(() => undefined);
});

test('with Redis unreachable a producer fails fast instead of hanging', async () => {
  const port = await freePort();
  const c = conn(producerConnection(`redis://127.0.0.1:${port}`));
  c.on('error', () => undefined);
  const queue = createQueue(`${name}-down`, c);
  queue.on('error', () => undefined);
  const started = Date.now();
  await expect(addWithin(queue, 500, 'run', {})).rejects.toBeInstanceOf(EnqueueTimeoutError);
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(await pingRedis(c, 300)).toBe(false);
  await closeWithin(1_000, () => queue.close());
});

test('closeWithin reports a close that does not finish in time', async () => {
  const never = () => new Promise<void>(() => undefined);
  const started = Date.now();
  expect(await closeWithin(200, never)).toBe(false);
  expect(Date.now() - started).toBeLessThan(1_000);
});

test('pingRedis answers true on a live server once connected', async () => {
  const c = conn(producerConnection(testInfra.redisUrl));
  await new Promise((resolve) => c.once('ready', resolve));
  expect(await pingRedis(c)).toBe(true);
});
