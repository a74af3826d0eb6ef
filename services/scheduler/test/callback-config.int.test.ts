import request from 'supertest';

import { mongoose } from '@platform/db';
import {
  createExecutionRepository,
  createFireReader,
  createScheduleRepository,
  fireGroupOf,
  type ExecutionRepository,
  type RunOutcome,
} from '@platform/scheduling';

import { signSha256 } from '../src/webhooks/signature';
import { refusesAndAcceptsCallbackUrls, URL_A, URL_B, type Kind } from './callback-config.cases';
import { SECRET, startSchedulerApp, type SchedulerTestApp } from './helpers';

// Completion callbacks, the scheduler's side (contract §8): `callback_url` and its secret on webhooks and both kinds
// of schedules, the rotation route, and the target every run the scheduler creates carries. Real app on FerretDB and
// Redis (nothing consumes the run queues here: the runs' delivery is the worker's, tested there).
let t: SchedulerTestApp;
let alice: string;
let bob: string;
let agentId: string;
let repo: ExecutionRepository;
const owner = { user_id: 'alice', org_id: 'acme' };
const ok: RunOutcome = { success: true, response_status: 200, response_output: 'ok', error_message: null };
const NO_DELIVERY_YET = {
  attempts: 0,
  last_status: null,
  last_error: null,
  delivered_at: null,
  next_attempt_at: null,
};

beforeAll(async () => {
  t = await startSchedulerApp();
  alice = await t.dbs.mintKey(owner);
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  agentId = await t.createAgent(alice);
  repo = createExecutionRepository(t.dbs.conn);
}, 60_000);
afterAll(async () => {
  await t.close();
}, 30_000);

const as = (key: string) => ({
  get: (p: string) => request(t.app).get(p).set('x-api-key', key),
  post: (p: string, body?: object) => {
    const req = request(t.app).post(p).set('x-api-key', key);
    return body === undefined ? req : req.send(body);
  },
  patch: (p: string, body: object) => request(t.app).patch(p).set('x-api-key', key).send(body),
});
const api = {
  get: (p: string) => as(alice).get(p),
  post: (p: string, body?: object) => as(alice).post(p, body),
  patch: (p: string, body: object) => as(alice).patch(p, body),
};

const KINDS: Kind[] = [
  {
    name: 'webhook',
    base: '/agent-webhooks',
    collection: 'webhooks',
    body: () => ({ agent_id: agentId }),
    list: 'webhooks',
  },
  {
    name: 'agent schedule',
    base: '/schedules',
    collection: 'schedules',
    body: () => ({ agent_id: agentId, cron_expression: '0 9 * * *' }),
    list: 'schedules',
  },
  {
    name: 'HTTP schedule',
    base: '/http-schedules',
    collection: 'schedules',
    body: () => ({ name: 'ping', url: 'https://example.com/ping', cron_expression: '0 9 * * *' }),
    list: 'schedules',
  },
];

async function create(k: Kind, extra: Record<string, unknown> = {}) {
  const res = await api.post(`${k.base}/`, { ...k.body(), ...extra });
  expect(res.status).toBe(201);
  return res.body;
}
const rawOf = async (collection: string, id: string) =>
  (await t.dbs.conn.collection(collection).findOne({ _id: new mongoose.Types.ObjectId(id) }))!;
const rotate = (k: Kind, id: string, key = alice) => as(key).post(`${k.base}/${id}/regenerate-callback-secret`);

describe.each(KINDS)('$name', (k) => {
  it('without callback_url: callback_url null, no secret, nothing stored', async () => {
    const r = await create(k);
    expect(r.callback_url).toBeNull();
    expect(r).not.toHaveProperty('callback_secret');
    const raw = await rawOf(k.collection, r.id);
    expect(raw.callback_url).toBeNull();
    expect(raw.callback_secret_sealed).toBeNull();
    const nulled = await create(k, { callback_url: null });
    expect(nulled.callback_url).toBeNull();
    expect(nulled).not.toHaveProperty('callback_secret');
  });

  it('with callback_url: the secret is shown in the create answer only, and stored sealed', async () => {
    const r = await create(k, { callback_url: URL_A });
    expect(r.callback_url).toBe(URL_A);
    expect(r.callback_secret).toMatch(SECRET);

    const got = await api.get(`${k.base}/${r.id}`);
    expect(got.status).toBe(200);
    expect(got.body.callback_url).toBe(URL_A);
    expect(got.body).not.toHaveProperty('callback_secret');
    const list = await api.get(`${k.base}/?limit=100`);
    const listed = list.body[k.list].find((x: { id: string }) => x.id === r.id);
    expect(listed.callback_url).toBe(URL_A);
    expect(list.text).not.toContain('callback_secret');
    expect(list.text).not.toContain(r.callback_secret);

    const raw = await rawOf(k.collection, r.id);
    expect(JSON.stringify(raw)).not.toContain(r.callback_secret.slice('whsec_'.length));
    expect(raw.callback_secret_sealed).not.toBe(r.callback_secret);
    expect(t.scheduleBox.decrypt(String(raw.callback_secret_sealed))).toBe(r.callback_secret);
  });

  it('PATCH: the first URL generates and shows a secret; a new URL keeps it; null removes both', async () => {
    const r = await create(k);
    const first = await api.patch(`${k.base}/${r.id}`, { callback_url: URL_A });
    expect(first.status).toBe(200);
    expect(first.body.callback_url).toBe(URL_A);
    expect(first.body.callback_secret).toMatch(SECRET);
    const sealed = (await rawOf(k.collection, r.id)).callback_secret_sealed;
    expect(t.scheduleBox.decrypt(String(sealed))).toBe(first.body.callback_secret);

    const moved = await api.patch(`${k.base}/${r.id}`, { callback_url: URL_B });
    expect(moved.status).toBe(200);
    expect(moved.body.callback_url).toBe(URL_B);
    expect(moved.body).not.toHaveProperty('callback_secret');
    expect((await rawOf(k.collection, r.id)).callback_secret_sealed).toBe(sealed);

    // Other fields patched alone show no secret and keep the callback.
    const other = await api.patch(
      `${k.base}/${r.id}`,
      k.name === 'webhook' ? { description: 'x' } : { max_retries: 1 },
    );
    expect(other.status).toBe(200);
    expect(other.body.callback_url).toBe(URL_B);
    expect(other.body).not.toHaveProperty('callback_secret');

    const rotated = await rotate(k, r.id);
    expect(rotated.status).toBe(200);
    expect(rotated.body.callback_url).toBe(URL_B);
    expect(rotated.body.callback_secret).toMatch(SECRET);
    expect(rotated.body.callback_secret).not.toBe(first.body.callback_secret);
    const after = await rawOf(k.collection, r.id);
    expect(t.scheduleBox.decrypt(String(after.callback_secret_sealed))).toBe(rotated.body.callback_secret);
    expect((await api.get(`${k.base}/${r.id}`)).body).not.toHaveProperty('callback_secret');

    const removed = await api.patch(`${k.base}/${r.id}`, { callback_url: null });
    expect(removed.status).toBe(200);
    expect(removed.body.callback_url).toBeNull();
    expect(removed.body).not.toHaveProperty('callback_secret');
    const raw = await rawOf(k.collection, r.id);
    expect(raw.callback_url).toBeNull();
    expect(raw.callback_secret_sealed).toBeNull();

    // Set again after removal: a new secret, shown once.
    const again = await api.patch(`${k.base}/${r.id}`, { callback_url: URL_A });
    expect(again.body.callback_secret).toMatch(SECRET);
    expect(again.body.callback_secret).not.toBe(rotated.body.callback_secret);
  });

  it('rotation: 409 without a callback_url, 404 for an unknown id or another owner’s', async () => {
    const bare = await create(k);
    const conflict = await rotate(k, bare.id);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ detail: expect.stringMatching(/has no callback_url/) });

    const withUrl = await create(k, { callback_url: URL_A });
    for (const [id, key] of [
      ['0123456789abcdef01234567', alice],
      ['not-an-id', alice],
      [withUrl.id, bob],
    ] as const) {
      const res = await rotate(k, id, key);
      expect(res.status).toBe(404);
      expect(res.body.detail).toMatch(/not found$/);
    }
    // Bob's attempt changed nothing.
    const raw = await rawOf(k.collection, withUrl.id);
    expect(t.scheduleBox.decrypt(String(raw.callback_secret_sealed))).toBe(withUrl.callback_secret);
    // A body is not needed, and one is ignored.
    const withBody = await as(alice).post(`${k.base}/${withUrl.id}/regenerate-callback-secret`, { x: 1 });
    expect(withBody.status).toBe(200);
    expect(withBody.body.callback_secret).toMatch(SECRET);
  });

  refusesAndAcceptsCallbackUrls(k, { t: () => t, api, create, rawOf });
});

it('an HTTP schedule whose url names a refused literal address: 422 at create and PATCH', async () => {
  const refused = { loc: ['body', 'url'], msg: expect.stringMatching(/169\.254\.169\.254/), type: 'url.refused' };
  const http = KINDS[2]!;
  const created = await api.post(`${http.base}/`, { ...http.body(), url: 'http://169.254.169.254/latest/' });
  expect(created.status).toBe(422);
  expect(created.body.detail).toEqual([refused]);
  const r = await create(http);
  const patched = await api.patch(`${http.base}/${r.id}`, { url: 'http://169.254.169.254/latest/' });
  expect(patched.status).toBe(422);
  expect(patched.body.detail).toEqual([refused]);
  expect((await api.get(`${http.base}/${r.id}`)).body.url).toBe('https://example.com/ping');
  // A PATCH that leaves the URL alone is not judged by it; one to an allowed address is taken.
  expect((await api.patch(`${http.base}/${r.id}`, { name: 'renamed' })).status).toBe(200);
  expect((await api.patch(`${http.base}/${r.id}`, { url: 'http://127.0.0.1:9999/x' })).body.url).toBe(
    'http://127.0.0.1:9999/x',
  );
});

it('the worker’s fire reader returns callback_url and callback_secret_sealed with the schedule (group read or alone)', async () => {
  const s = await create(KINDS[1]!, { callback_url: URL_A });
  const reader = createFireReader({ schedules: createScheduleRepository(t.dbs.conn), clock: Date.now });
  const group = fireGroupOf(s.id, '0 9 * * *', 'UTC');
  for (const r of [await reader.forFire(s.id, group, 1), await reader.forFire(s.id, undefined, 2)]) {
    expect(r).toMatchObject({ id: s.id, callback_url: URL_A, callback_secret_sealed: expect.any(String) });
    expect(t.scheduleBox.decrypt(r!.callback_secret_sealed!)).toBe(s.callback_secret);
  }
});

describe('the runs the scheduler creates carry the callback target', () => {
  /** The execution's raw document, and its public object as its parent's run list shows it. */
  async function runOf(listPath: string, executionId: string) {
    const raw = await rawOf('executions', executionId);
    const list = await api.get(`${listPath}?limit=100`);
    expect(list.status).toBe(200);
    const pub = list.body.executions.find((e: { id: string }) => e.id === executionId);
    expect(pub).toBeDefined();
    return { raw, pub };
  }

  function expectTarget(
    run: { raw: Record<string, unknown>; pub: Record<string, unknown> },
    url: string,
    secret: string,
  ) {
    const cb = run.raw.cb as { url: string; secret: string };
    expect(cb).toEqual({ url, secret: expect.any(String) });
    expect(cb.secret).not.toBe(secret);
    expect(t.scheduleBox.decrypt(cb.secret)).toBe(secret);
    expect(run.pub.delivery).toEqual(NO_DELIVERY_YET);
    expect(run.pub).not.toHaveProperty('cb');
    expect(run.pub).not.toHaveProperty('callback');
    expect(JSON.stringify(run.pub)).not.toContain(cb.secret);
  }
  function expectNoTarget(run: { raw: Record<string, unknown>; pub: Record<string, unknown> }) {
    expect(run.raw.cb ?? undefined).toBeUndefined();
    expect(run.pub.delivery).toBeNull();
  }

  const trigger = (hook: { id: string; secret_key: string }, body = '{"hello":"callback"}') =>
    request(t.app)
      .post(`/webhook-trigger/${hook.id}`)
      .set('content-type', 'application/json')
      .set('x-webhook-signature', signSha256(hook.secret_key, body))
      .send(body);

  it('a webhook trigger (and a run keeps the target it was created with)', async () => {
    const hook = await create(KINDS[0]!, { callback_url: URL_A });
    const res = await trigger(hook);
    expect(res.status).toBe(202);
    const first = await runOf(`/agent-webhooks/${hook.id}/executions`, res.body.execution_id);
    expectTarget(first, URL_A, hook.callback_secret);

    // A changed URL: the next trigger takes it at once (the trigger cache drops the webhook), the first run keeps its own.
    await api.patch(`/agent-webhooks/${hook.id}`, { callback_url: URL_B }).expect(200);
    const second = await trigger(hook, '{"n":2}');
    expectTarget(
      await runOf(`/agent-webhooks/${hook.id}/executions`, second.body.execution_id),
      URL_B,
      hook.callback_secret,
    );
    expect((await rawOf('executions', res.body.execution_id)).cb.url).toBe(URL_A);

    const plain = await create(KINDS[0]!);
    const none = await trigger(plain);
    expect(none.status).toBe(202);
    expectNoTarget(await runOf(`/agent-webhooks/${plain.id}/executions`, none.body.execution_id));
  });

  it.each([KINDS[1]!, KINDS[2]!])('a run-now of the $name', async (k) => {
    const s = await create(k, { callback_url: URL_A });
    const res = await api.post(`${k.base}/${s.id}/trigger`);
    expect(res.status).toBe(202);
    expectTarget(await runOf(`${k.base}/${s.id}/logs`, res.body.execution_id), URL_A, s.callback_secret);

    const plain = await create(k);
    const none = await api.post(`${k.base}/${plain.id}/trigger`);
    expectNoTarget(await runOf(`${k.base}/${plain.id}/logs`, none.body.execution_id));
  });

  it.each(KINDS)('a replay of a run of the $name takes its current target', async (k) => {
    const parent = await create(k);
    const ids = k.name === 'webhook' ? { webhook_id: parent.id } : { schedule_id: parent.id };
    const kind = k.name === 'webhook' ? 'webhook' : k.name === 'agent schedule' ? 'agent_schedule' : 'http_schedule';
    const at = t.now();
    const original = await repo.create(
      { ...owner, ...ids, kind, agent_id: k.name === 'HTTP schedule' ? null : agentId, payload: 'x', max_attempts: 1 },
      at,
    );
    await repo.claim(original.id, at, { claimant: 'test' });
    await repo.finish(original.id, 1, ok, at, at);
    const listPath = k.name === 'webhook' ? `${k.base}/${parent.id}/executions` : `${k.base}/${parent.id}/logs`;
    expectNoTarget(await runOf(listPath, original.id));

    const set = await api.patch(`${k.base}/${parent.id}`, { callback_url: URL_B });
    const res = await api.post(`${k.base}/${parent.id}/executions/${original.id}/replay`);
    expect(res.status).toBe(202);
    expectTarget(await runOf(listPath, res.body.execution_id), URL_B, set.body.callback_secret);

    // A bulk replay too, once the callback is removed: no target.
    await api.patch(`${k.base}/${parent.id}`, { callback_url: null }).expect(200);
    const again = await repo.create(
      { ...owner, ...ids, kind, agent_id: k.name === 'HTTP schedule' ? null : agentId, payload: 'y', max_attempts: 1 },
      at,
    );
    await repo.claim(again.id, at, { claimant: 'test' });
    await repo.finish(again.id, 1, ok, at, at);
    const bulk = await api.post(`${k.base}/${parent.id}/executions/replay`, { limit: 100 });
    expect(bulk.status).toBe(200);
    const replayOfAgain = bulk.body.replayed.find((r: { replay_of: string }) => r.replay_of === again.id);
    expectNoTarget(await runOf(listPath, replayOfAgain.execution_id));
  });
});
