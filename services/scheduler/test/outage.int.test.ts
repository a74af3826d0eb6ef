import request from 'supertest';

import { freePort, privateStore, type PrivateStore } from '@platform/testing';

import { startSchedulerApp, type SchedulerTestApp } from './helpers';

// MongoDB outage on a store server of this file's own, so stopping it disturbs no other test file.
describe('MongoDB down', () => {
  let db: PrivateStore;
  let t: SchedulerTestApp;
  let key: string;

  beforeAll(async () => {
    db = await privateStore();
    t = await startSchedulerApp({
      mongoUri: db.uri,
      connect: { ferretdb: { postgresUrl: db.postgresUrl } },
      agentServiceUrl: `http://127.0.0.1:${await freePort()}`,
    });
    key = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  }, 60_000);
  afterAll(async () => {
    await db.start().catch(() => undefined);
    await t.close().catch(() => undefined);
    await db.dispose();
  }, 60_000);

  it('answers 503 within 5 s, readiness says so, and it recovers', async () => {
    const id = 'a'.repeat(24);
    expect((await request(t.app).get(`/agent-webhooks/${id}`).set('x-api-key', key)).status).toBe(404);
    await db.stop();
    const calls = [
      () => request(t.app).get('/agent-webhooks/').set('x-api-key', key),
      () => request(t.app).get(`/agent-webhooks/${id}`).set('x-api-key', key),
      () => request(t.app).post(`/agent-webhooks/${id}/pause`).set('x-api-key', key),
      () => request(t.app).post('/agent-webhooks/pause-bulk/').set('x-api-key', key).send([id]),
      // the trigger stores before it acknowledges: with MongoDB down it cannot, so 503, never a 202
      () => request(t.app).post(`/webhook-trigger/${id}`).set('x-webhook-signature', 'sha256=00').send('{}'),
    ];
    for (const call of calls) {
      const started = Date.now();
      const res = await call();
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'Service unavailable' });
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    const ready = await request(t.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual({ mongodb: 'unavailable', redis: 'ok' });

    await db.start();
    let status = 0;
    for (let i = 0; i < 60 && status !== 200; i++) {
      status = (await request(t.app).get('/agent-webhooks/').set('x-api-key', key)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  }, 60_000);
});

describe('Redis down', () => {
  let t: SchedulerTestApp;
  beforeAll(async () => {
    t = await startSchedulerApp({
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
      agentServiceUrl: 'http://127.0.0.1:1',
    });
  }, 60_000);
  afterAll(() => t.close(), 30_000);

  it('readiness reports Redis unavailable within its timeout; liveness stays up', async () => {
    const started = Date.now();
    const ready = await request(t.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', checks: { mongodb: 'ok', redis: 'unavailable' } });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await request(t.app).get('/healthz')).status).toBe(200);
  });

  it('schedules are still created, changed and paused (MongoDB is the truth); the reconciler repairs Redis later', async () => {
    const key = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
    const started = Date.now();
    const created = await request(t.app)
      .post('/http-schedules/')
      .set('x-api-key', key)
      .send({ name: 'ping', url: 'https://example.com/', cron_expression: '*/5 * * * *' });
    expect(created.status).toBe(201);
    expect(created.body.next_run_time).not.toBeNull();
    const paused = await request(t.app).post(`/http-schedules/${created.body.id}/pause`).set('x-api-key', key);
    expect(paused.body.is_active).toBe(false);
    const run = await request(t.app).post(`/http-schedules/${created.body.id}/trigger`).set('x-api-key', key);
    expect(run.status).toBe(202); // stored; the outbox enqueues it when Redis is back
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(t.lines.some((l) => l.includes('the reconciler will'))).toBe(true);
  });
});
