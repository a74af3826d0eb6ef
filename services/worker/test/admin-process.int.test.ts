/** The worker process serves the queue dashboard when WORKER_ADMIN_TOKEN is set (main.ts wiring), on its real queues. */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import request from 'supertest';

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

const TOKEN = randomBytes(24).toString('hex');
let redis: PrivateRedis;
let dbs: TestDatabases;
const workers: ServiceProcess[] = [];

const start = async (extra: Record<string, string>) => {
  const worker = await startServiceProcess({
    script: resolve(__dirname, '../dist/main.js'),
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: dbs.conn.name,
      REDIS_URL: redis.url,
      AGENT_SERVICE_URL: `http://127.0.0.1:${await freePort()}`,
      INTERNAL_SERVICE_SECRET: randomBytes(32).toString('hex'),
      SCHEDULE_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      ...extra,
    },
  });
  workers.push(worker);
  return worker;
};

beforeAll(async () => {
  redis = await privateRedis();
  dbs = await createTestDatabases('worker_admin');
}, 60_000);
afterAll(async () => {
  for (const w of workers) await w.stop();
  await redis.stop();
  await dbs.cleanup();
});

test('with WORKER_ADMIN_TOKEN: the dashboard answers the token only, and lists the platform queues', async () => {
  const worker = await start({ WORKER_ADMIN_TOKEN: TOKEN });
  expect((await request(worker.url).get('/admin/queues')).status).toBe(401);
  const page = await request(worker.url).get('/admin/queues').set('authorization', `Bearer ${TOKEN}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('Worker queues');
  const api = await request(worker.url).get('/admin/queues/api/queues').set('authorization', `Bearer ${TOKEN}`);
  expect(api.status).toBe(200);
  expect((api.body.queues as { name: string }[]).map((q) => q.name)).toEqual(
    expect.arrayContaining(['agent-runs', 'http-calls', 'schedule-fires']),
  );
  expect((await request(worker.url).get('/openapi.json')).body.paths).toHaveProperty(['/admin/queues']);
}, 60_000);

test('without it: nothing is served there', async () => {
  const worker = await start({});
  const res = await request(worker.url).get('/admin/queues').set('authorization', `Bearer ${TOKEN}`);
  expect([res.status, res.body]).toEqual([404, { detail: 'Not Found' }]);
}, 60_000);
