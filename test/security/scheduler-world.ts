/** The scheduler as the security suites see it: A's webhook, schedules and HTTP schedules, their runs and probes. */
import { createHmac, randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import { startSchedulerApp } from '../../services/scheduler/test/helpers';
import { del, get, idOf, mintKeys, patch, post, USERS, type Probe, type Req } from './tenancy-kit';
import { deletedId, sender, worldOf, type SecurityWorld } from './world-kit';

const signed = (app: Express, hook: { id: string; secret_key: string }, body: string) =>
  request(app)
    .post(`/webhook-trigger/${hook.id}`)
    .set('content-type', 'application/json')
    .set(
      'x-webhook-signature',
      `sha256=${createHmac('sha256', Buffer.from(hook.secret_key, 'utf8')).update(body).digest('hex')}`,
    )
    .send(body);

/** The runs of the last 30 days of a kind of resource, A's `run` among them. */
const recent = (base: string, run: string): Probe => ({
  kind: 'list',
  req: get(`${base}/executions/recent?hours=720`),
  own: [run],
});

/** Same routes for both kinds of schedules. */
function scheduleProbes(base: string, own: string, absent: string, run: string): Record<string, Probe> {
  const hidden = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own, absent });
  return {
    [`POST ${base}/pause-bulk`]: hidden((id) => post(`${base}/pause-bulk/`, [id])),
    [`GET ${base}/{}`]: hidden((id) => get(`${base}/${id}`)),
    [`PATCH ${base}/{}`]: hidden((id) => patch(`${base}/${id}`, { cron_expression: '0 10 * * *' })),
    [`DELETE ${base}/{}`]: hidden((id) => del(`${base}/${id}`)),
    [`POST ${base}/{}/pause`]: hidden((id) => post(`${base}/${id}/pause`)),
    [`POST ${base}/{}/resume`]: hidden((id) => post(`${base}/${id}/resume`)),
    [`POST ${base}/{}/trigger`]: hidden((id) => post(`${base}/${id}/trigger`)),
    [`GET ${base}/{}/logs`]: hidden((id) => get(`${base}/${id}/logs`)),
    [`POST ${base}/{}/regenerate-callback-secret`]: hidden((id) => post(`${base}/${id}/regenerate-callback-secret`)),
    [`POST ${base}/{}/executions/replay`]: hidden((id) => post(`${base}/${id}/executions/replay`, { dry_run: true })),
    [`POST ${base}/{}/executions/{}/replay`]: hidden((id) => post(`${base}/${id}/executions/${run}/replay`)),
  };
}

export async function startSchedulerWorld(): Promise<SecurityWorld> {
  const t = await startSchedulerApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const { app } = t;
  const as = sender(app, keys.A);
  const agentId = await t.createAgent(keys.A);
  const absentAgent = await t.createAgent(keys.A);
  await request(t.agentServiceUrl).delete(`/v3/agents/${absentAgent}`).set('x-api-key', keys.A).expect(204);

  // A's webhook and schedules name a completion callback: its secret is shown once (at creation), never again.
  const callback_url = 'https://receiver.example.com/a-callbacks';
  const hookRes = await as(post('/agent-webhooks/', { agent_id: agentId, description: 'A hook', callback_url }));
  if (hookRes.status !== 201) throw new Error(`webhook: ${hookRes.status} ${hookRes.text}`);
  const hook = hookRes.body as { id: string; secret_key: string; callback_secret: string };
  const absentHook = await deletedId(
    app,
    keys.A,
    post('/agent-webhooks/', { agent_id: agentId }),
    'id',
    (id) => `/agent-webhooks/${id}`,
  );
  const agentSchedule = post('/schedules/', {
    agent_id: agentId,
    cron_expression: '0 9 * * *',
    message: 'A schedule',
    callback_url,
  });
  const headerSecret = `Bearer a-http-secret-${randomUUID()}`;
  const httpSchedule = post('/http-schedules/', {
    name: 'A call',
    url: 'https://example.com/hook',
    cron_expression: '0 9 * * *',
    headers: { authorization: headerSecret },
    callback_url,
  });
  const scheduleRes = await as(agentSchedule);
  const schedule = await idOf(scheduleRes, 'id', 'schedule');
  const absentSchedule = await deletedId(app, keys.A, agentSchedule, 'id', (id) => `/schedules/${id}`);
  const httpRes = await as(httpSchedule);
  const http = await idOf(httpRes, 'id', 'http schedule');
  const callbackSecrets = [
    hook.callback_secret,
    await idOf(scheduleRes, 'callback_secret', 'schedule'),
    await idOf(httpRes, 'callback_secret', 'http schedule'),
  ];
  const absentHttp = await deletedId(app, keys.A, httpSchedule, 'id', (id) => `/http-schedules/${id}`);
  const hookRun = await idOf(signed(app, hook, '{"from":"A"}'), 'execution_id', 'trigger');
  const scheduleRun = await idOf(as(post(`/schedules/${schedule}/trigger`)), 'execution_id', 'schedule trigger');
  const httpRun = await idOf(as(post(`/http-schedules/${http}/trigger`)), 'execution_id', 'http schedule trigger');

  const hiddenHook = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: hook.id, absent: absentHook });
  const byAgent = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: agentId, absent: absentAgent });
  const probes: Record<string, Probe> = {
    'POST /webhook-trigger/{}': {
      kind: 'exempt',
      why: 'no API key: the webhook signing secret is the credential (services/scheduler/test/signature.test.ts)',
    },
    'POST /agent-webhooks': byAgent((id) => post('/agent-webhooks/', { agent_id: id, description: 'on A agent' })),
    'GET /agent-webhooks': { kind: 'list', req: get('/agent-webhooks/'), own: [hook.id] },
    'POST /agent-webhooks/pause-bulk': hiddenHook((id) => post('/agent-webhooks/pause-bulk/', [id])),
    'GET /agent-webhooks/executions/recent': recent('/agent-webhooks', hookRun),
    'GET /agent-webhooks/{}/executions': hiddenHook((id) => get(`/agent-webhooks/${id}/executions`)),
    'GET /agent-webhooks/{}': hiddenHook((id) => get(`/agent-webhooks/${id}`)),
    'PATCH /agent-webhooks/{}': hiddenHook((id) => patch(`/agent-webhooks/${id}`, { description: 'taken over' })),
    'DELETE /agent-webhooks/{}': hiddenHook((id) => del(`/agent-webhooks/${id}`)),
    'POST /agent-webhooks/{}/pause': hiddenHook((id) => post(`/agent-webhooks/${id}/pause`)),
    'POST /agent-webhooks/{}/resume': hiddenHook((id) => post(`/agent-webhooks/${id}/resume`)),
    'POST /agent-webhooks/{}/regenerate-secret': hiddenHook((id) => post(`/agent-webhooks/${id}/regenerate-secret`)),
    'POST /agent-webhooks/{}/regenerate-callback-secret': hiddenHook((id) =>
      post(`/agent-webhooks/${id}/regenerate-callback-secret`),
    ),
    'POST /agent-webhooks/{}/executions/replay': hiddenHook((id) =>
      post(`/agent-webhooks/${id}/executions/replay`, { dry_run: true }),
    ),
    'POST /agent-webhooks/{}/executions/{}/replay': hiddenHook((id) =>
      post(`/agent-webhooks/${id}/executions/${hookRun}/replay`),
    ),
    'POST /schedules': byAgent((id) => post('/schedules/', { agent_id: id, cron_expression: '0 9 * * *' })),
    'GET /schedules': { kind: 'list', req: get('/schedules/'), own: [schedule] },
    'GET /schedules/executions/recent': recent('/schedules', scheduleRun),
    ...scheduleProbes('/schedules', schedule, absentSchedule, scheduleRun),
    'POST /http-schedules': {
      kind: 'create',
      req: post('/http-schedules/', {
        name: 'B call',
        url: 'https://example.com/b',
        cron_expression: '0 9 * * *',
        ...USERS.A,
      }),
    },
    'GET /http-schedules': { kind: 'list', req: get('/http-schedules/'), own: [http] },
    'GET /http-schedules/executions/recent': recent('/http-schedules', httpRun),
    ...scheduleProbes('/http-schedules', http, absentHttp, httpRun),
    'GET /schedules/by-agent/{}': byAgent((id) => get(`/schedules/by-agent/${id}`)),
  };
  const snapshot = [
    get(`/agent-webhooks/${hook.id}`),
    get('/agent-webhooks/'),
    get(`/agent-webhooks/${hook.id}/executions`),
    get(`/schedules/${schedule}`),
    get('/schedules/'),
    get(`/schedules/${schedule}/logs`),
    get(`/http-schedules/${http}`),
    get('/http-schedules/'),
    get(`/http-schedules/${http}/logs`),
    get(`/schedules/by-agent/${agentId}`),
  ];
  return worldOf(t, {
    service: 'scheduler',
    scope: 'owner',
    keys,
    probes,
    snapshot,
    // The callback secrets are not `shown`: only their creation answered with them, before the suites run.
    secrets: [hook.secret_key, headerSecret, ...callbackSecrets],
    shown: [hook.secret_key],
  });
}
