import request from 'supertest';

import { createRateLimit } from '@platform/http';
import {
  createExecutionRepository,
  type ExecutionRecord,
  type ExecutionRepository,
  type NewExecution,
  type RunOutcome,
} from '@platform/scheduling';
import { startLocalServer, type LocalServer } from '@platform/testing';

import { createApp } from '../src/app';
import { signSha256 } from '../src/webhooks/signature';
import { startSchedulerApp } from './helpers';
import { startTriggerStack, type TriggerStack } from './trigger-stack';

// Replays of webhook and schedule runs, on the whole path: the scheduler app, the agent service and a worker process
// (real BullMQ, FerretDB), a local LLM stand-in that echoes the message, and a local endpoint for HTTP schedules.
let s: TriggerStack;
let repo: ExecutionRepository;
let target: LocalServer;
const owner = { user_id: 'alice', org_id: 'acme' };
const ok: RunOutcome = { success: true, response_status: 200, response_output: 'ok', error_message: null };
const bad: RunOutcome = { success: false, response_status: 500, response_output: null, error_message: 'boom' };
let now: number;
/** The webhook's stored runs, oldest first: i % 3 == 0 failed, 1 succeeded, 2 still queued. */
const runs: ExecutionRecord[] = [];

const iso = (ms: number) => new Date(ms).toISOString();
const post = (path: string, body?: object, key = s.key) => {
  const req = request(s.app).post(path).set('x-api-key', key);
  return body === undefined ? req : req.send(body);
};
const base = () => `/agent-webhooks/${s.webhook.id}`;

/** Stores a run triggered at `at` and ends it as `outcome` says (null: left queued). */
async function storedRun(input: Omit<NewExecution, 'user_id' | 'org_id'>, at: Date, outcome: RunOutcome | null) {
  const r = await repo.create({ ...owner, ...input }, at);
  if (!outcome) return r;
  await repo.claim(r.id, at, { claimant: 'test' });
  return (await repo.finish(r.id, 1, outcome, at, at))!;
}

async function listOf(path: string): Promise<{ executions: ExecutionRecord[]; total: number }> {
  const res = await request(s.app).get(`${path}?limit=100`).set('x-api-key', s.key);
  expect(res.status).toBe(200);
  return res.body as { executions: ExecutionRecord[]; total: number };
}

beforeAll(async () => {
  s = await startTriggerStack({ startWorker: false });
  target = await startLocalServer((_req, res) => res.end('pong'));
  await s.startWorker({ OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}` });
  repo = createExecutionRepository(s.dbs.conn);
  now = Date.now();
  for (let i = 0; i < 6; i++) {
    const outcome = [bad, ok, null][i % 3]!;
    runs.push(
      await storedRun(
        { kind: 'webhook', webhook_id: s.webhook.id, agent_id: s.agentId, payload: { i }, max_attempts: 2 },
        new Date(now - (6 - i) * 10 * 60_000),
        outcome,
      ),
    );
  }
}, 120_000);
afterAll(async () => {
  await target.close();
  await s.close();
}, 30_000);

describe('bulk replay of a webhook', () => {
  it('dry_run counts the ended runs the filters match, and runs nothing', async () => {
    const cases: [object, number][] = [
      [{}, 4],
      [{ status: ['failed'] }, 2],
      [{ status: 'failed,succeeded', from: iso(now - 35 * 60_000) }, 2],
      [{ status: ['succeeded'], to: iso(now - 45 * 60_000) }, 1],
      [{ from: iso(now - 5 * 60_000) }, 0],
    ];
    for (const [filters, matched] of cases) {
      const res = await post(`${base()}/executions/replay`, { ...filters, dry_run: true });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ matched });
    }
    expect((await listOf(`${base()}/executions`)).total).toBe(6);
  });

  it('replays the failed runs as new executions linked to them, which the worker runs with the same input', async () => {
    const failed = runs.filter((r) => r.status === 'failed');
    const res = await post(`${base()}/executions/replay`, { status: ['failed'] });
    expect(res.status).toBe(200);
    expect(res.body.matched).toBe(2);
    expect(res.body.created).toBe(2);
    // Newest run first, as the list orders them.
    expect(res.body.replayed.map((r: { replay_of: string }) => r.replay_of)).toEqual([failed[1]!.id, failed[0]!.id]);
    const replayIds = res.body.replayed.map((r: { execution_id: string }) => r.execution_id) as string[];
    expect(new Set(replayIds).size).toBe(2);
    expect(replayIds.some((id) => runs.some((r) => r.id === id))).toBe(false);

    for (const [k, id] of replayIds.entries()) {
      const ended = await s.waitEnded(id);
      expect(ended).toMatchObject({
        status: 'succeeded',
        kind: 'webhook',
        webhook_id: s.webhook.id,
        agent_id: s.agentId,
        replay_of: k === 0 ? failed[1]!.id : failed[0]!.id,
        payload: k === 0 ? failed[1]!.payload : failed[0]!.payload,
        max_attempts: 2,
        scheduled_for: null,
      });
      // The agent was asked with the original's input (the stand-in echoes it).
      expect(ended.response_output).toContain(JSON.stringify(ended.payload));
    }
    // Visible in the webhook's list and in the execution's JSON; originals carry replay_of null.
    const list = await listOf(`${base()}/executions`);
    expect(list.total).toBe(8);
    const byId = new Map(list.executions.map((e) => [e.id, e]));
    expect(byId.get(replayIds[0]!)?.replay_of).toBe(failed[1]!.id);
    expect(byId.get(failed[0]!.id)?.replay_of).toBeNull();
  }, 60_000);

  it('replaying the same runs again within 24 h makes no new executions: it answers the first replays', async () => {
    const first = await post(`${base()}/executions/replay`, { status: ['failed'], to: iso(now) });
    expect(first.status).toBe(200);
    const again = await post(`${base()}/executions/replay`, { status: ['failed'], to: iso(now) });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, created: 0 });
    expect(first.body.created).toBe(0);
    expect((await listOf(`${base()}/executions`)).total).toBe(8);
  });

  it('limit replays the newest matches only; matched still counts them all', async () => {
    const res = await post(`${base()}/executions/replay`, { status: ['succeeded'], to: iso(now), limit: 1 });
    expect(res.status).toBe(200);
    expect(res.body.matched).toBe(2);
    expect(res.body.replayed).toEqual([{ execution_id: expect.any(String), replay_of: runs[4]!.id }]);
    await s.waitEnded(res.body.replayed[0].execution_id);
  }, 30_000);

  refusesWhatItMayNotReplay();
});

/** A bad body (422 on its field), a webhook the caller cannot see (404), no key (403), a paused webhook (409). */
function refusesWhatItMayNotReplay(): void {
  it.each([
    [{ limit: 1001 }, 'limit', 'number.max'],
    [{ limit: 0 }, 'limit', 'number.min'],
    [{ status: ['queued'] }, 'status', 'enum'],
    [{ status: 'failed,running' }, 'status', 'enum'],
    [{ status: ['done'] }, 'status', 'enum'],
    [{ status: [] }, 'status', 'enum'],
    [{ from: 'yesterday' }, 'from', 'datetime_type'],
    [{ from: '2025-01-01T10:00:00' }, 'from', 'datetime_type'],
    [{ from: '2025-01-02T00:00:00Z', to: '2025-01-01T00:00:00Z' }, 'to', 'date_min'],
    [{ dry_run: 'maybe' }, 'dry_run', 'bool_type'],
  ])('%j → 422 on that body field', async (body, field, type) => {
    const res = await post(`${base()}/executions/replay`, body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', field] })]);
    if (type !== 'number.max' && type !== 'number.min') expect(res.body.detail[0].type).toBe(type);
  });

  it("another owner's webhook, an unknown or malformed id → 404; no key → 403", async () => {
    const other = await s.dbs.mintKey({ user_id: 'mallory', org_id: 'evil' });
    for (const [path, key] of [
      [`${base()}/executions/replay`, other],
      [`${base()}/executions/${runs[0]!.id}/replay`, other],
      ['/agent-webhooks/0123456789abcdef01234567/executions/replay', s.key],
      ['/agent-webhooks/not-an-id/executions/replay', s.key],
    ] as const) {
      const res = await post(path, { dry_run: true }, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Webhook not found' });
    }
    expect((await request(s.app).post(`${base()}/executions/replay`).send({})).status).toBe(403);
  });

  it('a paused webhook replays nothing (409, as its trigger) but still counts', async () => {
    const hook = await post('/agent-webhooks/', { agent_id: s.agentId });
    const id = hook.body.id as string;
    const run = await storedRun(
      { kind: 'webhook', webhook_id: id, agent_id: s.agentId, payload: 'p', max_attempts: 1 },
      new Date(now - 60_000),
      bad,
    );
    await post(`/agent-webhooks/${id}/pause`);
    const bulk = await post(`/agent-webhooks/${id}/executions/replay`, {});
    expect(bulk.status).toBe(409);
    expect(bulk.body).toEqual({ detail: 'Webhook is paused' });
    expect((await post(`/agent-webhooks/${id}/executions/${run.id}/replay`)).status).toBe(409);
    expect((await post(`/agent-webhooks/${id}/executions/replay`, { dry_run: true })).body).toEqual({ matched: 1 });
    expect((await listOf(`/agent-webhooks/${id}/executions`)).total).toBe(1);
    await request(s.app).delete(`/agent-webhooks/${id}`).set('x-api-key', s.key);
    expect((await post(`/agent-webhooks/${id}/executions/replay`, {})).status).toBe(404);
  });
}

describe('single replay', () => {
  it('202 with a new queued execution; again within 24 h → 200 with the same one', async () => {
    const original = runs[1]!;
    const res = await post(`${base()}/executions/${original.id}/replay`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ execution_id: expect.any(String), status: 'queued', replay_of: original.id });
    const ended = await s.waitEnded(res.body.execution_id);
    expect(ended).toMatchObject({ status: 'succeeded', replay_of: original.id, payload: original.payload });

    const again = await post(`${base()}/executions/${original.id}/replay`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ execution_id: res.body.execution_id, status: 'succeeded', replay_of: original.id });
  }, 30_000);

  it('a replay replays too: the new one names the replay it re-runs, with the same input', async () => {
    const first = await post(`${base()}/executions/${runs[0]!.id}/replay`);
    expect(first.status).toBe(200); // replayed in bulk above
    await s.waitEnded(first.body.execution_id);
    const second = await post(`${base()}/executions/${first.body.execution_id}/replay`);
    expect(second.status).toBe(202);
    expect(second.body.replay_of).toBe(first.body.execution_id);
    const ended = await s.waitEnded(second.body.execution_id);
    expect(ended).toMatchObject({ status: 'succeeded', replay_of: first.body.execution_id, payload: { i: 0 } });
  }, 30_000);

  it('a run that has not ended → 409; a run of another webhook, an unknown or malformed id → 404', async () => {
    const queued = await post(`${base()}/executions/${runs[2]!.id}/replay`);
    expect(queued.status).toBe(409);
    expect(queued.body.detail).toMatch(/not ended/);
    const hook = await post('/agent-webhooks/', { agent_id: s.agentId });
    for (const path of [
      `/agent-webhooks/${hook.body.id}/executions/${runs[0]!.id}/replay`,
      `${base()}/executions/0123456789abcdef01234567/replay`,
      `${base()}/executions/nope/replay`,
      `/schedules/${'a'.repeat(24)}/executions/${runs[0]!.id}/replay`,
    ]) {
      const res = await post(path);
      expect(res.status).toBe(404);
    }
  });
});

describe('schedules', () => {
  it('an agent schedule: bulk and single replays run the original message', async () => {
    const created = await post('/schedules/', { agent_id: s.agentId, cron_expression: '0 0 1 1 *', message: 'now' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const fire = (message: string, outcome: RunOutcome) =>
      storedRun(
        {
          kind: 'agent_schedule',
          schedule_id: id,
          agent_id: s.agentId,
          payload: message,
          max_attempts: 4,
          retry_delay_ms: 60_000,
          scheduled_for: new Date(now - 120_000),
        },
        new Date(now - 120_000),
        outcome,
      );
    const failedRun = await fire('first message', bad);
    const okRun = await fire('second message', ok);

    expect((await post(`/schedules/${id}/executions/replay`, { status: 'failed', dry_run: true })).body).toEqual({
      matched: 1,
    });
    // Paused: a schedule replays, as its manual trigger runs.
    await post(`/schedules/${id}/pause`);
    const bulk = await post(`/schedules/${id}/executions/replay`, { status: ['failed'] });
    expect(bulk.status).toBe(200);
    expect(bulk.body).toMatchObject({ matched: 1, created: 1, replayed: [{ replay_of: failedRun.id }] });
    const ended = await s.waitEnded(bulk.body.replayed[0].execution_id);
    expect(ended).toMatchObject({
      status: 'succeeded',
      kind: 'agent_schedule',
      schedule_id: id,
      replay_of: failedRun.id,
      payload: 'first message',
      max_attempts: 4,
      scheduled_for: null,
    });
    expect(ended.response_output).toContain('first message');

    const one = await post(`/schedules/${id}/executions/${okRun.id}/replay`);
    expect(one.status).toBe(202);
    expect(await s.waitEnded(one.body.execution_id)).toMatchObject({ replay_of: okRun.id, payload: 'second message' });
    const logs = await listOf(`/schedules/${id}/logs`);
    expect(
      logs.executions
        .filter((e) => e.replay_of !== null)
        .map((e) => e.replay_of)
        .sort(),
    ).toEqual([failedRun.id, okRun.id].sort());
    // The other kind's routes do not know it.
    expect((await post(`/http-schedules/${id}/executions/replay`, { dry_run: true })).status).toBe(404);
    expect((await post(`/http-schedules/${id}/executions/${okRun.id}/replay`)).status).toBe(404);
  }, 60_000);

  it('an HTTP schedule: the replay calls the endpoint again', async () => {
    const created = await post('/http-schedules/', {
      name: 'ping',
      url: `${target.url}/hook`,
      method: 'POST',
      body: { hello: 1 },
      cron_expression: '0 0 1 1 *',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const run = await storedRun(
      {
        kind: 'http_schedule',
        schedule_id: id,
        payload: { method: 'POST', url: `${target.url}/hook` },
        max_attempts: 1,
        retry_delay_ms: 1000,
      },
      new Date(now - 60_000),
      bad,
    );
    const calls = target.requests.length;
    const res = await post(`/http-schedules/${id}/executions/replay`, {});
    expect(res.body).toMatchObject({ matched: 1, created: 1, replayed: [{ replay_of: run.id }] });
    const ended = await s.waitEnded(res.body.replayed[0].execution_id);
    expect(ended).toMatchObject({
      status: 'succeeded',
      kind: 'http_schedule',
      replay_of: run.id,
      response_status: 200,
      response_output: 'pong',
    });
    expect(target.requests.length).toBe(calls + 1);
    expect(target.requests.at(-1)).toMatchObject({ method: 'POST', url: '/hook', json: { hello: 1 } });
  }, 30_000);
});

it("a webhook's replay calls count against its trigger limit, shared with its triggers (429 with Retry-After)", async () => {
  const t = await startSchedulerApp();
  try {
    const key = await t.dbs.mintKey(owner);
    const limit = createRateLimit({ name: 'webhook', points: 3, windowSec: 60, logger: t.deps.logger });
    const app = createApp({ ...t.deps, webhookRateLimit: limit });
    const hook = await request(app)
      .post('/agent-webhooks/')
      .set('x-api-key', key)
      .send({ agent_id: await t.createAgent(key) });
    const replay = (path = '/executions/replay') =>
      request(app).post(`/agent-webhooks/${hook.body.id}${path}`).set('x-api-key', key).send({ dry_run: true });
    expect((await replay()).status).toBe(200);
    expect((await replay()).status).toBe(200);
    const body = '{"n":1}';
    const trigger = await request(app)
      .post(`/webhook-trigger/${hook.body.id}`)
      .set('content-type', 'application/json')
      .set('x-webhook-signature', signSha256(hook.body.secret_key as string, body))
      .send(body);
    expect(trigger.status).toBe(202);
    for (const path of ['/executions/replay', `/executions/${'0'.repeat(24)}/replay`]) {
      const over = await replay(path);
      expect(over.status).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Schedules have no such limit (as their manual trigger).
    const sched = await request(app)
      .post('/schedules/')
      .set('x-api-key', key)
      .send({ agent_id: hook.body.agent_id, cron_expression: '0 0 1 1 *' });
    for (let i = 0; i < 4; i++)
      expect(
        (
          await request(app)
            .post(`/schedules/${sched.body.id}/executions/replay`)
            .set('x-api-key', key)
            .send({ dry_run: true })
        ).body,
      ).toEqual({ matched: 0 });
  } finally {
    await t.close();
  }
}, 60_000);
