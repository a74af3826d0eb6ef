import { createHmac } from 'node:crypto';
import request from 'supertest';

import type { Execution } from '@platform/scheduling';
import { eventually, type LocalServer } from '@platform/testing';

import { startScheduleStack, type ScheduleStack } from './schedule-stack';

// Completion callbacks end to end (contract §8): an HTTP schedule created through the scheduler's API with a
// `callback_url`, run by a cron fire, a run-now and a replay through the real worker consumers; the receiver is the
// user's endpoint stand-in (allow-listed for the workers). The receiver checks signatures with the secret the API
// returned, as a sender's server would.
let s: ScheduleStack;
beforeAll(async () => {
  s = await startScheduleStack();
  await s.startWorker();
}, 60_000);
afterAll(() => s.close(), 30_000);

const api = () => request(s.t.app);
const callbacksAt = (path: string): LocalServer['requests'] => s.target.requests.filter((r) => r.url === path);

function signedBy(req: LocalServer['requests'][number], secret: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${String(req.headers['webhook-id'])}.${String(req.headers['webhook-timestamp'])}.${req.body}`;
  return String(req.headers['webhook-signature']) === `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

/** The schedule's runs as the API lists them. */
const logs = async (id: string): Promise<Execution[]> => {
  const res = await api().get(`/http-schedules/${id}/logs`).set('x-api-key', s.key);
  expect(res.status).toBe(200);
  return res.body.executions as Execution[];
};

it('a cron fire, a run-now and a replay each call back, signed with the secret in force when the run was made', async () => {
  s.setTarget((_req, res) => res.end('ok'));
  const created = await api()
    .post('/http-schedules/')
    .set('x-api-key', s.key)
    .send({
      name: 'ping',
      url: `${s.target.url}/hook`,
      cron_expression: '*/5 * * * *',
      max_retries: 0,
      callback_url: `${s.target.url}/cb`,
    });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const first = created.body.callback_secret as string;
  expect(first).toMatch(/^whsec_/);

  // 1. The cron fire's run.
  await s.fireNow(id);
  const [fired] = await s.waitEnded(id, 1);
  const one = await eventually('the fire run called back', () => callbacksAt('/cb')[0]);
  expect(signedBy(one, first)).toBe(true);
  const sent = (one.json as { type: string; data: Execution }).data;
  expect((one.json as { type: string }).type).toBe('execution.ended');
  expect(sent).toMatchObject({ id: fired!.id, kind: 'http_schedule', schedule_id: id, status: 'succeeded' });
  // The API shows the delivery on the run.
  const shown = await eventually('the delivery on the run', async () => {
    const run = (await logs(id)).find((e) => e.id === fired!.id);
    return run?.delivery?.delivered_at ? run : undefined;
  });
  expect(shown.delivery).toMatchObject({ attempts: 1, last_status: 200, last_error: null, next_attempt_at: null });
  // The secret is never shown again.
  const read = await api().get(`/http-schedules/${id}`).set('x-api-key', s.key);
  expect(read.body.callback_url).toBe(`${s.target.url}/cb`);
  expect(JSON.stringify(read.body)).not.toContain(first);

  // 2. After a rotation, a run made now is signed with the new secret only.
  const rotated = await api().post(`/http-schedules/${id}/regenerate-callback-secret`).set('x-api-key', s.key);
  expect(rotated.status).toBe(200);
  const second = rotated.body.callback_secret as string;
  expect(second).toMatch(/^whsec_/);
  expect(second).not.toBe(first);
  const now = await api().post(`/http-schedules/${id}/trigger`).set('x-api-key', s.key);
  expect(now.status).toBe(202);
  const two = await eventually('the run-now called back', () =>
    callbacksAt('/cb').find((r) => (r.json as { data: Execution }).data.id === now.body.execution_id),
  );
  expect(signedBy(two, second)).toBe(true);
  expect(signedBy(two, first)).toBe(false);

  // 3. A replay of the fire's run is a run of its own, called back too.
  const replay = await api()
    .post(`/http-schedules/${id}/executions/${fired!.id}/replay`)
    .set('x-api-key', s.key)
    .send({});
  expect(replay.status).toBe(202);
  const three = await eventually('the replay called back', () =>
    callbacksAt('/cb').find((r) => (r.json as { data: Execution }).data.id === replay.body.execution_id),
  );
  expect((three.json as { data: Execution }).data).toMatchObject({ replay_of: fired!.id, status: 'succeeded' });
  expect(signedBy(three, second)).toBe(true);
  // One callback per run, whatever happened meanwhile.
  expect(callbacksAt('/cb')).toHaveLength(3);
});

it('a schedule without a callback_url calls nothing back and its runs show no delivery', async () => {
  const before = s.target.requests.length;
  const id = await s.createHttp({ max_retries: 0 });
  const res = await api().post(`/http-schedules/${id}/trigger`).set('x-api-key', s.key);
  expect(res.status).toBe(202);
  const [run] = await s.waitEnded(id, 1);
  expect(run!.delivery).toBeNull();
  expect((await logs(id))[0]!.delivery).toBeNull();
  // Only the schedule's own call reached the endpoint.
  expect(s.target.requests.slice(before).map((r) => r.url)).toEqual(['/hook']);
});
