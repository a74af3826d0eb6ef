/**
 * The HTTP schedules API (`/http-schedules`) on the real scheduler app, and the document of both kinds' routes. The
 * app: schedules-api-fixture.ts.
 */
import request from 'supertest';

import { createScheduleRepository, scheduleModel } from '@platform/scheduling';

import { api, as, otherKey, t, useSchedulesApp } from './schedules-api-fixture';

useSchedulesApp();

const newHttpSchedule = async (body: Record<string, unknown> = {}) => {
  const res = await api().post('/http-schedules/', {
    name: 'ping',
    url: 'https://example.com/hook',
    cron_expression: '*/10 * * * *',
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body;
};

describe('HTTP schedules', () => {
  it('creates with defaults; header values are encrypted at rest and masked on read', async () => {
    const res = await api().post('/http-schedules', {
      name: 'nightly',
      url: 'https://example.com/hook',
      headers: { Authorization: 'Bearer s3cret-token' },
      query: { a: 1, b: true },
      body: { any: ['json'] },
      cron_expression: '0 2 * * *',
      timezone: 'US/Eastern',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'nightly',
      method: 'GET',
      headers: { Authorization: '***' },
      query: { a: '1', b: 'true' },
      body: { any: ['json'] },
      timeout_ms: 10000,
      max_retries: 3,
      retry_delay: 60,
      overlap_policy: 'skip',
      is_active: true,
    });
    expect(res.body).not.toHaveProperty('agent_id');
    const raw = await scheduleModel(t.dbs.conn).findById(res.body.id).lean();
    expect(JSON.stringify(raw)).not.toContain('s3cret-token');

    // Sending the mask back keeps the stored value; a new value replaces it.
    const kept = await api().patch(`/http-schedules/${res.body.id}`, {
      headers: { Authorization: '***', 'X-New': 'v' },
      method: 'POST',
    });
    expect(kept.body.headers).toEqual({ Authorization: '***', 'X-New': '***' });
    const before = JSON.parse(raw!.http!.headers_json!) as Record<string, string>;
    const after = (await createScheduleRepository(t.dbs.conn).getById(res.body.id))!.http!.headers_sealed;
    expect(after.Authorization).toBe(before.Authorization);
    expect(t.scheduleBox.decrypt(after['X-New']!)).toBe('v');
  });

  it.each([
    [{ url: 'ftp://example.com/x' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: `https://example.com/${'a'.repeat(2100)}` }, 'url'],
    [{ name: '' }, 'name'],
    [{ method: 'TRACE' }, 'method'],
    [{ timeout_ms: 99 }, 'timeout_ms'],
    [{ timeout_ms: 30001 }, 'timeout_ms'],
    [{ headers: { 'bad header': 'x' } }, 'headers'],
    [{ headers: { 'X-Injected': 'a\r\nHost: evil' } }, 'headers'],
    [{ headers: 'x' }, 'headers'],
    [{ headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`h${i}`, 'v'])) }, 'headers'],
    [{ query: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`q${i}`, 'v'])) }, 'query'],
    [{ cron_expression: '* * * * * *' }, 'cron_expression'],
  ])('refuses %j with 422', async (patch, field) => {
    const res = await api().post('/http-schedules/', {
      name: 'x',
      url: 'https://example.com',
      cron_expression: '* * * * *',
      ...patch,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc[1]).toBe(field);
  });

  it('has the same sub-resources: read, list, pause, resume, trigger, logs, recent, bulk pause, delete', async () => {
    const s = await newHttpSchedule();
    const path = `/http-schedules/${s.id}`;
    expect((await api().get(path)).body.name).toBe('ping');
    expect((await api().get('/http-schedules/')).body.schedules.map((x: { id: string }) => x.id)).toContain(s.id);
    expect((await api().post(`${path}/pause`)).body.is_active).toBe(false);
    expect((await api().post(`${path}/resume`)).body.is_active).toBe(true);
    const run = await api().post(`${path}/trigger`);
    expect(run.status).toBe(202);
    const logs = await api().get(`${path}/logs`);
    expect(logs.body.executions[0]).toMatchObject({ kind: 'http_schedule', schedule_id: s.id, agent_id: null });
    const recent = await api().get('/http-schedules/executions/recent');
    expect(recent.body.executions.every((e: { kind: string }) => e.kind === 'http_schedule')).toBe(true);
    const bulk = await api().post('/http-schedules/pause-bulk', [s.id]);
    expect(bulk.body).toMatchObject({ paused_count: 1, message: 'Paused 1 of 1 HTTP schedule' });
    expect(bulk.body.paused_schedules[0].id).toBe(s.id);
    expect((await as(otherKey).get(path)).body).toEqual({ detail: 'HTTP schedule not found' });
    expect((await api().delete(path)).status).toBe(204);
  });
});

it('/openapi.json describes every schedule route of both kinds', async () => {
  const paths = Object.keys((await request(t.app).get('/openapi.json')).body.paths);
  for (const base of ['/schedules', '/http-schedules']) {
    for (const p of [
      '/',
      '/pause-bulk/',
      '/executions/recent',
      '/{schedule_id}',
      '/{schedule_id}/pause',
      '/{schedule_id}/resume',
      '/{schedule_id}/trigger',
      '/{schedule_id}/logs',
      '/{schedule_id}/regenerate-callback-secret',
    ]) {
      expect(paths).toContain(base + p);
    }
  }
  expect(paths).toContain('/schedules/by-agent/{agent_id}');
});
