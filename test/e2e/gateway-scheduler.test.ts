import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';
import { captureLogger } from '@platform/testing';

import { createApp as createGateway } from '../../services/gateway/src/app';
import { startSchedulerApp, type SchedulerTestApp } from '../../services/scheduler/test/helpers';

// A client with one base URL (the gateway) creating webhooks and schedules: the scheduler's refusal of a URL naming a
// refused literal address (the cloud metadata address) reaches the client as the scheduler gave it, 422 at the field,
// and nothing is stored. The real scheduler app and the real agent service (which it asks about the agent) behind it.
let t: SchedulerTestApp;
let scheduler: RunningServer;
let gateway: RunningServer;
let base: string;
let alice: string;
let agentId: string;

beforeAll(async () => {
  t = await startSchedulerApp();
  scheduler = await listen(t.app, 0, undefined, '127.0.0.1');
  const app = createGateway({
    logger: captureLogger('gateway').logger,
    upstreams: {
      scheduler: new URL(`http://127.0.0.1:${scheduler.port}`),
      agent: new URL(t.agentServiceUrl),
    },
    timeoutMs: 5_000,
  });
  gateway = await listen(app, 0, undefined, '127.0.0.1');
  base = `http://127.0.0.1:${gateway.port}`;
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  agentId = await t.createAgent(alice);
}, 60_000);
afterAll(async () => {
  await gateway.close(1_000);
  await scheduler.close(1_000);
  await t.close();
}, 30_000);

const METADATA = 'http://169.254.169.254/latest/meta-data/';
const refusedAt = (field: string) => [
  { loc: ['body', field], msg: expect.stringMatching(/169\.254\.169\.254/), type: 'url.refused' },
];
const count = async (collection: string) => (await t.dbs.conn.collection(collection).find({}).toArray()).length;

it.each([
  ['a webhook', '/agent-webhooks/', () => ({ agent_id: agentId, callback_url: METADATA })],
  [
    'an agent schedule',
    '/schedules/',
    () => ({ agent_id: agentId, cron_expression: '0 9 * * *', callback_url: METADATA }),
  ],
  [
    'an HTTP schedule',
    '/http-schedules/',
    () => ({ name: 'ping', url: 'https://example.com/ping', cron_expression: '0 9 * * *', callback_url: METADATA }),
  ],
])(
  '%s with a callback_url naming the metadata address: 422 at callback_url through the gateway',
  async (_l, path, body) => {
    const before = [await count('webhooks'), await count('schedules')];
    const res = await request(base).post(path).set('x-api-key', alice).send(body());
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.detail).toEqual(refusedAt('callback_url'));
    expect([await count('webhooks'), await count('schedules')]).toEqual(before);
  },
);

it('an HTTP schedule whose url names the metadata address: 422 at url through the gateway; a good one is created', async () => {
  const bad = await request(base)
    .post('/http-schedules/')
    .set('x-api-key', alice)
    .send({ name: 'ping', url: 'http://169.254.169.254/latest/', cron_expression: '0 9 * * *' });
  expect(bad.status).toBe(422);
  expect(bad.body.detail).toEqual(refusedAt('url'));
  const good = await request(base)
    .post('/http-schedules/')
    .set('x-api-key', alice)
    .send({ name: 'ping', url: 'https://example.com/ping', cron_expression: '0 9 * * *' });
  expect(good.status).toBe(201);
  const patched = await request(base)
    .patch(`/http-schedules/${String(good.body.id)}`)
    .set('x-api-key', alice)
    .send({ url: 'http://169.254.169.254/latest/' });
  expect(patched.status).toBe(422);
  expect(patched.body.detail).toEqual(refusedAt('url'));
  const read = await request(base)
    .get(`/http-schedules/${String(good.body.id)}`)
    .set('x-api-key', alice);
  expect(read.status).toBe(200);
  expect(read.body.url).toBe('https://example.com/ping');
});
