/**
 * The queue dashboard (Bull Board) at /admin/queues: mounted only with an admin token, 401 in the contract's shape
 * without the right one, read-only (nothing can be paused, added, retried or cleaned), showing the real queues on
 * Redis with their jobs.
 */
import { Registry } from 'prom-client';
import request from 'supertest';

import { createQueue, producerConnection, QUEUE_NAMES, type Queue, type RedisConnection } from '@platform/queue';
import { captureLogger, testInfra, uniqueName } from '@platform/testing';

import { MIN_ADMIN_TOKEN_LENGTH } from '../src/admin/admin-token';
import { createApp } from '../src/app';
import { configSchema } from '../src/config';

const TOKEN = 'worker-admin-token-0123456789abcdef';
let redis: RedisConnection;
let queues: Queue[];

const appWith = (admin: boolean) =>
  createApp({
    logger: captureLogger('worker').logger,
    registry: new Registry(),
    readiness: {},
    alive: () => true,
    admin: admin ? { token: TOKEN, queues } : undefined,
  });

beforeAll(async () => {
  redis = producerConnection(testInfra.redisUrl);
  const prefix = uniqueName('admin');
  queues = Object.values(QUEUE_NAMES).map((name) => createQueue(name, redis, {}, prefix));
  await queues[0]!.add('run', { execution_id: 'e1' });
});

afterAll(async () => {
  for (const q of queues) {
    await q.obliterate({ force: true });
    await q.close();
  }
  redis.disconnect();
});

describe('without WORKER_ADMIN_TOKEN', () => {
  test('nothing is served at /admin/queues and the document does not list it', async () => {
    const app = appWith(false);
    const res = await request(app).get('/admin/queues').set('authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
    expect((await request(app).get('/openapi.json')).body.paths).toEqual({});
  });
});

describe('with WORKER_ADMIN_TOKEN', () => {
  const app = () => appWith(true);

  test.each([
    ['no credentials', {}, 'Admin token missing'],
    ['a wrong bearer token', { authorization: `Bearer ${TOKEN.slice(0, -1)}x` }, 'Invalid admin token'],
    ['a longer token that starts with the right one', { authorization: `Bearer ${TOKEN}x` }, 'Invalid admin token'],
    [
      'a wrong Basic password',
      { authorization: `Basic ${Buffer.from(`admin:${'x'.repeat(40)}`).toString('base64')}` },
      'Invalid admin token',
    ],
    [
      'Basic with the token as the user name',
      { authorization: `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}` },
      'Invalid admin token',
    ],
    ['a wrong x-admin-token', { 'x-admin-token': 'nope' }, 'Invalid admin token'],
    ['an API key instead', { 'x-api-key': TOKEN }, 'Admin token missing'],
  ])('%s → 401 {"detail"} with a Basic challenge, on the page and on its API', async (_name, headers, detail) => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/favicon-32x32.png']) {
      const res = await request(app()).get(path).set(headers);
      expect([path, res.status, res.body]).toEqual([path, 401, { detail }]);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="worker admin"/);
    }
  });

  test.each([
    ['a bearer token', { authorization: `Bearer ${TOKEN}` }],
    [
      'Basic with the token as the password (what a browser sends)',
      { authorization: `Basic ${Buffer.from(`anyone:${TOKEN}`).toString('base64')}` },
    ],
    ['x-admin-token', { 'x-admin-token': TOKEN }],
  ])('the right token as %s → the dashboard page', async (_name, headers) => {
    const res = await request(app()).get('/admin/queues').set(headers);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<base href="/admin/queues/"');
    expect(res.text).toContain('Worker queues');
  });

  test('its API lists every queue of the platform, read-only, with the real job counts', async () => {
    const res = await request(app()).get('/admin/queues/api/queues').set('authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    const listed = res.body.queues as { name: string; readOnlyMode: boolean; counts: Record<string, number> }[];
    expect(listed.map((q) => q.name).sort()).toEqual(Object.values(QUEUE_NAMES).sort());
    expect(listed.every((q) => q.readOnlyMode)).toBe(true);
    expect(listed.find((q) => q.name === QUEUE_NAMES.agentRuns)!.counts.waiting).toBe(1);
  });

  test.each([
    ['PUT', `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}/pause`],
    ['PUT', '/admin/queues/api/queues/pause'],
    ['POST', `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}/add`],
    ['PUT', `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}/clean/waiting`],
    ['PUT', `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}/empty`],
    ['DELETE', `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}`],
  ])('%s %s with the token → 405, and the queue is unchanged', async (method, path) => {
    const send = request(app())[method.toLowerCase() as 'put' | 'post' | 'delete'];
    const res = await send(path).set('authorization', `Bearer ${TOKEN}`).send({ name: 'x', data: {} });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'The queue dashboard is read-only' });
    expect(await queues[0]!.isPaused()).toBe(false);
    expect((await queues[0]!.getJobCounts('waiting')).waiting).toBe(1);
  });

  test('the document lists the dashboard with its token schemes', async () => {
    const doc = (await request(app()).get('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/admin/queues']);
    expect(doc.paths['/admin/queues'].get.security).toEqual([{ adminBearer: [] }, { adminBasic: [] }]);
  });
});

describe('WORKER_ADMIN_TOKEN in the configuration', () => {
  const base = {
    AGENT_SERVICE_URL: 'http://127.0.0.1:3002',
    INTERNAL_SERVICE_SECRET: 's'.repeat(32),
    SCHEDULE_SECRET_ENCRYPTION_KEY: 'ab'.repeat(32),
  };

  test(`shorter than ${MIN_ADMIN_TOKEN_LENGTH} characters is refused at start`, () => {
    const { error } = configSchema.validate({ ...base, WORKER_ADMIN_TOKEN: 'x'.repeat(MIN_ADMIN_TOKEN_LENGTH - 1) });
    expect(error?.message).toMatch(/WORKER_ADMIN_TOKEN/);
  });

  test('empty or unset means no dashboard; a long enough one is kept', () => {
    expect(configSchema.validate({ ...base, WORKER_ADMIN_TOKEN: '' }).value.WORKER_ADMIN_TOKEN).toBeUndefined();
    expect(configSchema.validate(base).value.WORKER_ADMIN_TOKEN).toBeUndefined();
    expect(configSchema.validate({ ...base, WORKER_ADMIN_TOKEN: TOKEN }).value.WORKER_ADMIN_TOKEN).toBe(TOKEN);
  });
});
