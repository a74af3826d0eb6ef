/** The agent schedules API (`/schedules`) on the real scheduler app. The app: schedules-api-fixture.ts. */
import request from 'supertest';

import { ISO } from './helpers';
import { agentId, api, as, key, otherKey, t, useSchedulesApp } from './schedules-api-fixture';

useSchedulesApp();

const SCHEDULE_KEYS = [
  'agent_id',
  'callback_url',
  'created_at',
  'cron_expression',
  'id',
  'is_active',
  'last_run_at',
  'last_run_success',
  'max_retries',
  'message',
  'next_run_time',
  'overlap_policy',
  'retry_delay',
  'run_count',
  'timezone',
  'updated_at',
  'user_id',
];
const newAgentSchedule = async (body: Record<string, unknown> = {}) => {
  const res = await api().post('/schedules/', { agent_id: agentId, cron_expression: '0 9 * * *', ...body });
  expect(res.status).toBe(201);
  return res.body;
};

/** Creation: the defaults and the contract fields, and each bad body or agent refused. */
function createsAndRefusesBadInput(): void {
  it('creates with the defaults, exactly the contract fields, next_run_time in the zone', async () => {
    const res = await api().post('/schedules/', {
      agent_id: agentId,
      cron_expression: '0 9 * * MON-FRI',
      timezone: 'Asia/Calcutta',
      id: 'x',
      user_id: 'mallory',
      run_count: 9,
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SCHEDULE_KEYS);
    expect(res.body).toMatchObject({
      agent_id: agentId,
      user_id: 'alice',
      message: '',
      timezone: 'Asia/Calcutta',
      max_retries: 3,
      retry_delay: 60,
      overlap_policy: 'skip',
      is_active: true,
      run_count: 0,
      last_run_at: null,
      last_run_success: null,
      updated_at: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f]{24}$/);
    expect(res.body.created_at).toMatch(ISO);
    // 09:00 in India is 03:30 UTC, on a weekday.
    expect(res.body.next_run_time).toMatch(/T03:30:00\.000Z$/);
    expect([1, 2, 3, 4, 5]).toContain(new Date(res.body.next_run_time).getUTCDay());
    expect((await api().get('/schedules')).status).toBe(200); // no trailing slash, no redirect
  });

  it.each([
    [{ cron_expression: '61 * * * *' }, 'cron_expression'],
    [{ cron_expression: '* * * *' }, 'cron_expression'],
    [{ cron_expression: '@daily' }, 'cron_expression'],
    [{ cron_expression: 5 }, 'cron_expression'],
    [{ cron_expression: undefined }, 'cron_expression'],
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ max_retries: 11 }, 'max_retries'],
    [{ max_retries: -1 }, 'max_retries'],
    [{ retry_delay: 0 }, 'retry_delay'],
    [{ retry_delay: 3601 }, 'retry_delay'],
    [{ overlap_policy: 'queue' }, 'overlap_policy'],
    [{ message: 7 }, 'message'],
    [{ agent_id: undefined }, 'agent_id'],
  ])('refuses %j with 422 on %s', async (patch, field) => {
    const res = await api().post('/schedules/', { agent_id: agentId, cron_expression: '0 9 * * *', ...patch });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(['body', field]);
  });

  it('says why a cron expression is invalid', async () => {
    const res = await api().post('/schedules/', { agent_id: agentId, cron_expression: '0 25 * * *' });
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'cron_expression'], type: 'value_error' });
    expect(res.body.detail[0].msg).toMatch(/Invalid cron expression: .*(23|25)/);
  });

  it('refuses a body that is not JSON, and an agent that is not the caller’s', async () => {
    const bad = await request(t.app)
      .post('/schedules/')
      .set('x-api-key', key)
      .set('content-type', 'application/json')
      .send('{nope');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    for (const id of ['999999', 'abc']) {
      const res = await api().post('/schedules/', { agent_id: id, cron_expression: '0 9 * * *' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Agent not found' });
    }
    expect((await as(otherKey).post('/schedules/', { agent_id: agentId, cron_expression: '0 9 * * *' })).status).toBe(
      404,
    );
  });
}

/** A schedule read, changed, paused, resumed, deleted, listed and run now, as its owner and as another. */
function readsChangesListsAndTriggers(): void {
  it('reads, changes, pauses, resumes and deletes; another owner sees 404 everywhere', async () => {
    const s = await newAgentSchedule({ message: 'daily report' });
    const path = `/schedules/${s.id}`;
    expect((await api().get(path)).body).toEqual(s);

    const changed = await api().patch(path, {
      message: 'weekly',
      cron_expression: '0 8 * * 1',
      timezone: 'Europe/Berlin',
      max_retries: 0,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      message: 'weekly',
      cron_expression: '0 8 * * 1',
      timezone: 'Europe/Berlin',
      max_retries: 0,
      agent_id: agentId,
    });
    expect(changed.body.updated_at).toMatch(ISO);
    expect(new Date(changed.body.next_run_time).getUTCDay()).toBe(1);
    expect((await api().patch(path, { cron_expression: 'nope' })).status).toBe(422);
    expect((await api().patch(path, { agent_id: '424242' })).status).toBe(404);

    const paused = await api().post(`${path}/pause`);
    expect(paused.body).toMatchObject({ is_active: false, next_run_time: null });
    expect((await api().post(`${path}/pause`)).body.is_active).toBe(false);
    const resumed = await api().post(`${path}/resume`);
    expect(resumed.body.is_active).toBe(true);
    expect(resumed.body.next_run_time).toMatch(ISO);

    const bob = as(otherKey);
    for (const res of [
      await bob.get(path),
      await bob.patch(path, { message: 'x' }),
      await bob.post(`${path}/pause`),
      await bob.post(`${path}/trigger`),
      await bob.get(`${path}/logs`),
      await bob.delete(path),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Schedule not found' });
    }
    expect((await api().get('/schedules/not-an-id')).status).toBe(404);
    expect((await api().get(`/http-schedules/${s.id}`)).status).toBe(404); // the other kind

    expect((await api().delete(path)).status).toBe(204);
    expect((await api().get(path)).status).toBe(404);
    expect((await api().delete(path)).status).toBe(404);
  });

  it('lists the caller’s schedules newest first with filters and the total of all matches', async () => {
    const second = await t.createAgent(key);
    const a = await newAgentSchedule();
    const b = await newAgentSchedule({ agent_id: second });
    await api().post(`/schedules/${b.id}/pause`);
    const all = await api().get('/schedules/?limit=100');
    expect(all.body.total).toBe(all.body.schedules.length);
    expect(all.body.schedules[0].id).toBe(b.id);
    const byAgent = await api().get(`/schedules/?agent_id=${second}`);
    expect(byAgent.body).toMatchObject({ total: 1, schedules: [{ id: b.id }] });
    const active = await api().get('/schedules/?is_active=false');
    expect(active.body.schedules.map((x: { id: string }) => x.id)).toEqual([b.id]);
    const page = await api().get('/schedules/?skip=1&limit=1');
    expect(page.body.schedules).toHaveLength(1);
    expect(page.body.total).toBe(all.body.total);
    expect((await api().get('/schedules/?limit=101')).status).toBe(422);
    expect((await as(otherKey).get('/schedules/')).body).toEqual({ schedules: [], total: 0 });
    expect(a.id).not.toBe(b.id);
  });

  it('triggers a run now (202), which the logs and the recent view show', async () => {
    const s = await newAgentSchedule({ message: 'run me' });
    await api().post(`/schedules/${s.id}/pause`);
    const res = await api().post(`/schedules/${s.id}/trigger`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ execution_id: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'queued' });
    const logs = await api().get(`/schedules/${s.id}/logs`);
    expect(logs.body.total).toBe(1);
    expect(logs.body.executions[0]).toMatchObject({
      id: res.body.execution_id,
      kind: 'agent_schedule',
      schedule_id: s.id,
      agent_id: agentId,
      payload: 'run me',
      status: 'queued',
      max_attempts: 4,
      webhook_id: null,
    });
    expect(logs.body.executions[0]).not.toHaveProperty('fire_key');
    expect((await api().get(`/schedules/${s.id}/logs?success=true`)).body.total).toBe(0);
    const recent = await api().get(`/schedules/executions/recent?agent_id=${agentId}&hours=1`);
    expect(recent.body.executions.map((e: { id: string }) => e.id)).toContain(res.body.execution_id);
    expect((await api().get('/schedules/executions/recent?hours=721')).status).toBe(422);
    expect((await as(otherKey).get('/schedules/executions/recent')).body.total).toBe(0);
  });
}

describe('agent schedules', () => {
  createsAndRefusesBadInput();
  readsChangesListsAndTriggers();

  it('bulk pause counts every entry once, in order', async () => {
    const [a, b, c] = [await newAgentSchedule(), await newAgentSchedule(), await newAgentSchedule()];
    await api().post(`/schedules/${c.id}/pause`);
    const bobs = await as(otherKey).post('/http-schedules/', {
      name: 'x',
      url: 'https://example.com',
      cron_expression: '* * * * *',
    });
    const res = await api().post('/schedules/pause-bulk/', [
      a.id,
      b.id,
      a.id,
      c.id,
      'nope',
      'f'.repeat(24),
      bobs.body.id,
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total_requested: 7,
      paused_count: 2,
      already_paused_count: 2,
      not_found_count: 2,
      invalid_count: 1,
    });
    expect(res.body.paused_schedules.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
    expect(res.body.message).toBe('Paused 2 of 7 schedules (2 already paused, 2 not found, 1 invalid)');
    expect((await api().post('/schedules/pause-bulk/', Array(101).fill(a.id))).status).toBe(422);
    expect((await api().post('/schedules/pause-bulk/', { ids: [a.id] })).status).toBe(422);
  });

  it('by-agent lists the agent’s schedules and webhooks', async () => {
    const agent = await t.createAgent(key);
    const s = await newAgentSchedule({ agent_id: agent });
    const hook = await api().post('/agent-webhooks/', { agent_id: agent });
    const res = await api().get(`/schedules/by-agent/${agent}`);
    expect(res.status).toBe(200);
    expect(res.body.agent_id).toBe(agent);
    expect(res.body.schedules.map((x: { id: string }) => x.id)).toEqual([s.id]);
    expect(res.body.webhooks.map((x: { id: string }) => x.id)).toEqual([hook.body.id]);
    expect((await as(otherKey).get(`/schedules/by-agent/${agent}`)).body).toEqual({
      agent_id: agent,
      schedules: [],
      webhooks: [],
    });
  });

  it('needs an API key', async () => {
    expect((await request(t.app).get('/schedules/')).body).toEqual({ detail: 'API key missing' });
    expect((await request(t.app).get('/http-schedules/').set('x-api-key', 'sk_nope')).status).toBe(403);
  });
});
