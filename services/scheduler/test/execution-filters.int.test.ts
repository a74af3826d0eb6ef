import request from 'supertest';

import { createExecutionRepository, type ExecutionRecord, type ExecutionRepository } from '@platform/scheduling';

import { startSchedulerApp, type SchedulerTestApp } from './helpers';

// status, from and to on every execution list: the webhook's executions, the schedules' logs and the recent views.
let t: SchedulerTestApp;
let key: string;
let repo: ExecutionRepository;
let webhookId: string;
let scheduleId: string;
let agentId: string;
const owner = { user_id: 'filters', org_id: 'acme' };
const runs: ExecutionRecord[] = [];
const scheduleRuns: ExecutionRecord[] = [];
const ok = { success: true, response_status: 200, response_output: 'ok', error_message: null };
const bad = { success: false, response_status: 500, response_output: null, error_message: 'boom' };
let now: number;

/** Ends run `i` by the pattern the checks below expect: failed, succeeded, running or still queued. */
async function settle(r: ExecutionRecord, i: number): Promise<ExecutionRecord> {
  if (i % 4 === 3) return r;
  const at = new Date(r.triggered_at);
  const running = (await repo.claim(r.id, at, { claimant: 'test' }))!;
  if (i % 4 === 2) return running;
  return (await repo.finish(r.id, 1, i % 4 === 0 ? bad : ok, at, at))!;
}

beforeAll(async () => {
  t = await startSchedulerApp();
  key = await t.dbs.mintKey(owner);
  repo = createExecutionRepository(t.dbs.conn);
  agentId = await t.createAgent(key);
  webhookId = (await request(t.app).post('/agent-webhooks/').set('x-api-key', key).send({ agent_id: agentId })).body.id;
  scheduleId = (
    await request(t.app)
      .post('/schedules/')
      .set('x-api-key', key)
      .send({ agent_id: agentId, cron_expression: '0 0 1 1 *' })
  ).body.id;
  now = Date.now();
  for (let i = 0; i < 70; i++) {
    const at = new Date(now - (70 - i) * 60_000);
    runs.push(
      await settle(
        await repo.create(
          { kind: 'webhook', webhook_id: webhookId, agent_id: agentId, ...owner, payload: { i }, max_attempts: 1 },
          at,
        ),
        i,
      ),
    );
  }
  for (let i = 0; i < 6; i++) {
    const at = new Date(now - (6 - i) * 600_000);
    scheduleRuns.push(
      await settle(
        await repo.create(
          {
            kind: 'agent_schedule',
            schedule_id: scheduleId,
            agent_id: agentId,
            ...owner,
            payload: 'm',
            max_attempts: 1,
          },
          at,
        ),
        i,
      ),
    );
  }
}, 90_000);
afterAll(async () => {
  await t.close();
}, 30_000);

const get = (path: string) => request(t.app).get(path).set('x-api-key', key);
const iso = (ms: number) => new Date(ms).toISOString();
const newestIds = (rs: ExecutionRecord[]) =>
  [...rs].sort((a, b) => b.triggered_at.localeCompare(a.triggered_at)).map((r) => r.id);

it.each([
  ['status=failed', (r: ExecutionRecord) => r.status === 'failed'],
  ['status=failed&status=queued', (r: ExecutionRecord) => r.status === 'failed' || r.status === 'queued'],
  ['status=running,succeeded', (r: ExecutionRecord) => r.status === 'running' || r.status === 'succeeded'],
  ['status=succeeded,failed&success=true', (r: ExecutionRecord) => r.status === 'succeeded'],
  ['success=false', (r: ExecutionRecord) => r.success === false],
  ['status=skipped', () => false],
  ['from=FROM', (r: ExecutionRecord) => r.triggered_at >= iso(now - 30 * 60_000)],
  ['to=FROM', (r: ExecutionRecord) => r.triggered_at < iso(now - 30 * 60_000)],
  [
    'from=FROM&to=TO&status=queued',
    (r: ExecutionRecord) =>
      r.triggered_at >= iso(now - 30 * 60_000) && r.triggered_at < iso(now - 10 * 60_000) && r.status === 'queued',
  ],
  ['from=FROM&to=FROM', () => false],
])('webhook executions ?%s: the matching runs, newest first, with their total', async (query, keep) => {
  const q = query.replace(/FROM/g, iso(now - 30 * 60_000)).replace(/TO/g, iso(now - 10 * 60_000));
  const res = await get(`/agent-webhooks/${webhookId}/executions?${q}&limit=100`);
  expect(res.status).toBe(200);
  const expected = newestIds(runs.filter(keep));
  expect(res.body.executions.map((e: { id: string }) => e.id)).toEqual(expected);
  expect(res.body.total).toBe(expected.length);
  const page = await get(`/agent-webhooks/${webhookId}/executions?${q}&skip=2&limit=3`);
  expect(page.body.executions.map((e: { id: string }) => e.id)).toEqual(expected.slice(2, 5));
  expect(page.body.total).toBe(expected.length);
});

it('the recent views and the schedule logs take the same filters', async () => {
  const failedRecent = await get(`/agent-webhooks/executions/recent?status=failed&agent_id=${agentId}&limit=100`);
  expect(failedRecent.body.executions.map((e: { id: string }) => e.id)).toEqual(
    newestIds(runs.filter((r) => r.status === 'failed')),
  );
  const window = await get(`/agent-webhooks/executions/recent?from=${iso(now - 20 * 60_000)}&hours=1&limit=100`);
  expect(window.body.total).toBe(runs.filter((r) => r.triggered_at >= iso(now - 20 * 60_000)).length);
  const logs = await get(`/schedules/${scheduleId}/logs?status=queued,failed`);
  expect(logs.body.executions.map((e: { id: string }) => e.id)).toEqual(
    newestIds(scheduleRuns.filter((r) => ['queued', 'failed'].includes(r.status))),
  );
  const recent = await get(`/schedules/executions/recent?to=${iso(now - 25 * 60_000)}&status=succeeded`);
  expect(recent.body.executions.map((e: { id: string }) => e.id)).toEqual(
    newestIds(scheduleRuns.filter((r) => r.status === 'succeeded' && r.triggered_at < iso(now - 25 * 60_000))),
  );
  expect((await get('/http-schedules/executions/recent?status=failed')).body).toEqual({ executions: [], total: 0 });
});

it.each([
  ['status=done', 'status', 'enum'],
  ['status=failed,', 'status', 'enum'],
  ['status=', 'status', 'enum'],
  ['status=FAILED', 'status', 'enum'],
  ['from=yesterday', 'from', 'datetime_type'],
  ['to=2025-13-01T00:00:00Z', 'to', 'datetime_type'],
  ['from=2025-01-01T10:00:00', 'from', 'datetime_type'],
  ['from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z', 'to', 'date_min'],
])('?%s → 422 on that query parameter, on every list', async (query, field, type) => {
  for (const path of [
    `/agent-webhooks/${webhookId}/executions`,
    '/agent-webhooks/executions/recent',
    `/schedules/${scheduleId}/logs`,
    '/schedules/executions/recent',
    '/http-schedules/executions/recent',
  ]) {
    const res = await get(`${path}?${query}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', field], msg: expect.any(String), type }] });
  }
});
