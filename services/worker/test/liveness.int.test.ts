import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

import {
  createTestDatabases,
  freePort,
  privateRedis,
  startServiceProcess,
  testInfra,
  type PrivateRedis,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

let redis: PrivateRedis;
let dbs: TestDatabases;
let worker: ServiceProcess;

beforeAll(async () => {
  redis = await privateRedis();
  dbs = await createTestDatabases('worker');
  worker = await startServiceProcess({
    script: resolve(__dirname, '../dist/main.js'),
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: dbs.conn.name,
      REDIS_URL: redis.url,
      AGENT_SERVICE_URL: `http://127.0.0.1:${await freePort()}`,
      INTERNAL_SERVICE_SECRET: randomBytes(32).toString('hex'),
      SCHEDULE_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LIVENESS_STALE_MS: '2000',
      LOG_LEVEL: 'warn',
    },
  });
}, 60_000);
afterAll(async () => {
  await worker.stop();
  await redis.stop();
  await dbs.cleanup();
});

const get = (path: string) => fetch(worker.url + path);
async function waitStatus(path: string, status: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = (await get(path)).status;
    if (last === status) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  return last;
}

it('serves metrics of the queue and the runs', async () => {
  const text = await (await get('/metrics')).text();
  for (const queue of ['agent-runs', 'http-calls', 'schedule-fires'])
    expect(text).toContain(`queue_jobs{queue="${queue}",state="waiting"`);
  expect(text).toContain('queue_jobs_stalled_total');
  expect(text).toContain('run_duration_seconds');
  expect(text).toContain('run_attempts_total');
});

it('liveness fails once the consumer is cut off from Redis, and recovers when it consumes again', async () => {
  expect((await get('/healthz')).status).toBe(200);
  expect((await get('/readyz')).status).toBe(200);
  await redis.stop();
  expect(await waitStatus('/healthz', 503, 10_000)).toBe(503);
  expect((await get('/readyz')).status).toBe(503);
  await redis.start();
  expect(await waitStatus('/healthz', 200, 15_000)).toBe(200);
  expect(await waitStatus('/readyz', 200, 10_000)).toBe(200);
}, 40_000);
