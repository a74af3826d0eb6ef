import { createHmac, randomBytes } from 'node:crypto';

import { addFire, nextFire, type CallbackTarget, type ExecutionRecord } from '@platform/scheduling';
import type { LocalServer } from '@platform/testing';

import { eventually, OWNER, startWorkerStack, type WorkerStack } from './worker-stack';

/**
 * Completion callbacks (contract §8) as the worker delivers them: real FerretDB, Redis and BullMQ; the receiver is a
 * local server standing in for the sender's endpoint (allow-listed for the outbound guard like any test endpoint).
 * Retry waits are shortened (CALLBACK_RETRY_DELAYS_MS) and the receiver's time limit is 1 s.
 */
const DELAYS_MS = [300, 600, 300, 300];
const TIMEOUT_MS = 1_000;

let s: WorkerStack;
beforeAll(async () => {
  s = await startWorkerStack({ callbackDelaysMs: DELAYS_MS.join(','), callbackTimeoutMs: TIMEOUT_MS });
}, 30_000);
afterAll(async () => {
  await s.close();
}, 30_000);

/** A fresh secret in the Standard Webhooks form, and the run's target as the scheduler seals it. */
function targetFor(path: string, url = `${s.target.url}${path}`): { secret: string; callback: CallbackTarget } {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  return { secret, callback: { url, secret: s.box.encrypt(secret) } };
}

/** The receiver answers `status` on `path` (and 200 elsewhere). */
const answerAt = (path: string, status: number) =>
  s.setTarget((req, res) => {
    res.statusCode = req.url === path ? status : 200;
    res.end();
  });

/** The callbacks the receiver got on `path`, in order. */
const deliveries = (path: string): LocalServer['requests'] => s.target.requests.filter((r) => r.url === path);

/** Checks a delivery's signature the way a receiver would (Standard Webhooks), written here from the specification. */
function verified(req: LocalServer['requests'][number], secret: string): boolean {
  const id = String(req.headers['webhook-id']);
  const ts = String(req.headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${req.body}`).digest('base64');
  return String(req.headers['webhook-signature'])
    .split(' ')
    .some((sig) => sig === `v1,${expected}`);
}

const delivered = (id: string, attempts: number, timeoutMs = 15_000) =>
  eventually(
    `delivery of ${id} to reach ${attempts} attempts and end`,
    async () => {
      const e = await s.executions.get(id);
      return e?.delivery && e.delivery.attempts >= attempts && e.delivery.next_attempt_at === null ? e : undefined;
    },
    timeoutMs,
  );

/** An ended run, succeeded or failed, is POSTed once to its callback_url, signed, and the delivery recorded. */
function callsBackSucceededAndFailedRuns(): void {
  it('POSTs the ended execution once, signed per Standard Webhooks, and records the delivery', async () => {
    s.setTarget((_req, res) => res.end('thanks'));
    const { secret, callback } = targetFor('/cb/ok');
    const exec = await s.triggerWebhookRun({ payload: { q: 'hello' }, callback });
    // Until its run ends, the run shows a delivery with nothing tried yet.
    expect(exec.delivery).toEqual({
      attempts: 0,
      last_status: null,
      last_error: null,
      delivered_at: null,
      next_attempt_at: null,
    });
    const ended = await delivered(exec.id, 1);
    const [got, ...more] = deliveries('/cb/ok');
    expect(more).toHaveLength(0);
    expect(got!.method).toBe('POST');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['webhook-id']).toBe(`msg_${exec.id}`);
    const ts = Number(got!.headers['webhook-timestamp']);
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(60);
    expect(verified(got!, secret)).toBe(true);
    expect(verified(got!, `whsec_${randomBytes(24).toString('base64')}`)).toBe(false);

    const body = got!.json as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe('execution.ended');
    expect(body.data).toMatchObject({
      id: exec.id,
      kind: 'webhook',
      status: 'succeeded',
      success: true,
      attempt: 1,
      payload: { q: 'hello' },
      error_message: null,
    });
    expect(String(body.data.response_output)).toContain('hello');
    expect(body.data.finished_at).toEqual(expect.any(String));
    expect(body.data.duration_ms).toEqual(expect.any(Number));
    // Nothing server-side goes out: not the target, not the sealed secret.
    expect(Object.keys(body.data)).not.toEqual(expect.arrayContaining(['callback']));
    expect(got!.body).not.toContain(callback.secret);
    expect(got!.body).not.toContain(secret);

    expect(ended.delivery).toEqual({
      attempts: 1,
      last_status: 200,
      last_error: null,
      delivered_at: expect.any(String),
      next_attempt_at: null,
    });
    expect(Date.parse(ended.delivery!.delivered_at!)).toBeGreaterThanOrEqual(Date.parse(ended.finished_at!));
    expect(await s.callbacks.getJobState(`cb-${exec.id}`)).toBe('completed');
  });

  it('a failed run is called back too, with its error', async () => {
    s.setAgent((_req, res) => {
      res.statusCode = 422;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ detail: 'agent has no model' }));
    });
    try {
      const { callback } = targetFor('/cb/failed');
      const exec = await s.triggerWebhookRun({ payload: 'x', callback, max_attempts: 1 });
      await delivered(exec.id, 1);
      const [got] = deliveries('/cb/failed');
      const data = (got!.json as { data: ExecutionRecord }).data;
      expect(data).toMatchObject({ id: exec.id, status: 'failed', success: false });
      expect(data.error_message).toEqual(expect.any(String));
    } finally {
      s.setAgent((req, res) => {
        const body = req.json as { session_id: string; agent_id: string; message: string };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ response: `echo: ${body.message}`, session_id: body.session_id, agent_id: '42' }));
      });
    }
  });
}

describe('a run with a callback_url', () => {
  callsBackSucceededAndFailedRuns();

  it('5xx and 429 answers are tried again after the configured waits, with the same webhook-id, until a 2xx', async () => {
    const answers = [503, 429, 200];
    s.setTarget((req, res) => {
      if (req.url !== '/cb/flaky') return res.end('ok');
      res.statusCode = answers[deliveries('/cb/flaky').length - 1] ?? 200;
      res.end();
    });
    const { secret, callback } = targetFor('/cb/flaky');
    const exec = await s.triggerWebhookRun({ payload: 'retry me', callback });
    // After the first failure the run shows it and when the next attempt is due.
    const pending = await eventually('the first failed attempt recorded', async () => {
      const e = await s.executions.get(exec.id);
      return e?.delivery?.attempts === 1 ? e : undefined;
    });
    expect(pending.delivery).toMatchObject({ attempts: 1, last_status: 503, delivered_at: null });
    expect(pending.delivery!.last_error).toContain('503');
    expect(pending.delivery!.next_attempt_at).toEqual(expect.any(String));

    const ended = await delivered(exec.id, 3);
    expect(ended.delivery).toMatchObject({ attempts: 3, last_status: 200, last_error: null });
    const got = deliveries('/cb/flaky');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([`msg_${exec.id}`]));
    expect(got.every((r) => verified(r, secret))).toBe(true);
    // Each attempt is signed at its own time; the waits between them are the configured ones (BullMQ may add a
    // little, never less).
    const at = got.map((r) => r.at);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(DELAYS_MS[0]! - 20);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(DELAYS_MS[1]! - 20);
  });

  it('a receiver that does not answer within the time limit is tried again', async () => {
    let calls = 0;
    s.setTarget((req, res) => {
      if (req.url !== '/cb/slow') return res.end('ok');
      calls++;
      if (calls === 1) return; // never answers: the attempt times out
      res.end('late but fine');
    });
    const { callback } = targetFor('/cb/slow');
    const exec = await s.triggerWebhookRun({ payload: 'slow', callback });
    const ended = await delivered(exec.id, 2, 20_000);
    expect(ended.delivery).toMatchObject({ attempts: 2, last_status: 200, last_error: null });
    expect(calls).toBe(2);
  });

  it('gives up after 5 attempts; the run shows why, and no sixth comes', async () => {
    answerAt('/cb/down', 502);
    const { callback } = targetFor('/cb/down');
    const exec = await s.triggerWebhookRun({ payload: 'nobody home', callback });
    const ended = await delivered(exec.id, 5, 20_000);
    expect(ended.delivery).toEqual({
      attempts: 5,
      last_status: 502,
      last_error: expect.stringContaining('502'),
      delivered_at: null,
      next_attempt_at: null,
    });
    await s.waitJob(s.callbacks, `cb-${exec.id}`, 'failed');
    await new Promise((r) => setTimeout(r, 2 * Math.max(...DELAYS_MS)));
    expect(deliveries('/cb/down')).toHaveLength(5);
    // The run itself is untouched by its callback's fate.
    expect((await s.executions.get(exec.id))!.status).toBe('succeeded');
  }, 30_000);

  it('a 4xx answer ends the delivery at once (the receiver refused it)', async () => {
    answerAt('/cb/gone', 410);
    const { callback } = targetFor('/cb/gone');
    const exec = await s.triggerWebhookRun({ payload: 'x', callback });
    const ended = await delivered(exec.id, 1);
    expect(ended.delivery).toMatchObject({ attempts: 1, last_status: 410, delivered_at: null, next_attempt_at: null });
    await s.waitJob(s.callbacks, `cb-${exec.id}`, 'failed');
    expect(deliveries('/cb/gone')).toHaveLength(1);
  });

  it('an address the outbound rules refuse is never called and not tried again', async () => {
    const { callback } = targetFor('', 'http://169.254.169.254/latest/meta-data/');
    const exec = await s.triggerWebhookRun({ payload: 'x', callback });
    const ended = await delivered(exec.id, 1);
    expect(ended.delivery).toMatchObject({ attempts: 1, last_status: null, delivered_at: null, next_attempt_at: null });
    expect(ended.delivery!.last_error).toMatch(/refused|not allowed|blocked|link-local|metadata/i);
    await s.waitJob(s.callbacks, `cb-${exec.id}`, 'failed');
  });

  it('an HTTP schedule run is called back like a webhook run', async () => {
    s.setTarget((_req, res) => res.end('ok'));
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/endpoint`, method: 'GET' });
    const { secret, callback } = targetFor('/cb/http');
    const exec = await s.storeExecution({
      kind: 'http_schedule',
      schedule_id: schedule.id,
      ...OWNER,
      payload: { manual: true },
      max_attempts: 1,
      callback,
    });
    await s.enqueue(exec);
    await delivered(exec.id, 1);
    const [got] = deliveries('/cb/http');
    expect(verified(got!, secret)).toBe(true);
    expect((got!.json as { data: ExecutionRecord }).data).toMatchObject({
      kind: 'http_schedule',
      status: 'succeeded',
      response_status: 200,
    });
  });
});

describe('cron fires of a schedule with a callback_url', () => {
  const DAILY = '0 9 * * *';
  /** Queues a fire by hand as the reconciler does, and waits until the worker has handled it. */
  async function fire(scheduleId: string, fireMs: number): Promise<void> {
    await addFire(s.fires, scheduleId, fireMs, 2_000);
    await s.waitJob(s.fires, `fire:${scheduleId}:${fireMs}`);
  }

  it("a fire's run carries the schedule's target and is called back when it ends", async () => {
    s.setTarget((_req, res) => res.end('ok'));
    const { secret, callback } = targetFor('/cb/cron');
    const schedule = await s.createAgentSchedule('cron hello', '61', { cron_expression: DAILY, callback });
    const fireMs = nextFire(DAILY, 'UTC', Date.now())!;
    await fire(schedule.id, fireMs);
    const [run] = await s.executionsOf(schedule.id);
    await delivered(run!.id, 1);
    const [got] = deliveries('/cb/cron');
    expect(verified(got!, secret)).toBe(true);
    expect((got!.json as { data: ExecutionRecord }).data).toMatchObject({
      id: run!.id,
      kind: 'agent_schedule',
      schedule_id: schedule.id,
      status: 'succeeded',
      scheduled_for: new Date(fireMs).toISOString(),
    });
  });

  it('a fire recorded skipped (overlap_policy skip) is called back at once with status skipped', async () => {
    const { callback } = targetFor('/cb/skipped');
    const schedule = await s.createAgentSchedule('no overlap', '62', {
      cron_expression: DAILY,
      overlap_policy: 'skip',
      callback,
    });
    // A run still waiting for its turn (stored, not on a queue): the fire finds it unfinished.
    await s.storeExecution({
      kind: 'agent_schedule',
      schedule_id: schedule.id,
      agent_id: '62',
      ...OWNER,
      payload: 'no overlap',
      max_attempts: 1,
    });
    await fire(schedule.id, nextFire(DAILY, 'UTC', Date.now())!);
    const skipped = (await s.executionsOf(schedule.id)).find((e) => e.status === 'skipped');
    await delivered(skipped!.id, 1);
    const [got] = deliveries('/cb/skipped');
    expect((got!.json as { data: ExecutionRecord }).data).toMatchObject({ id: skipped!.id, status: 'skipped' });
  });
});

describe('a run without a callback_url', () => {
  it('has no delivery and queues nothing', async () => {
    const exec = await s.triggerWebhookRun({ payload: 'quiet' });
    const ended = await s.waitEnded(exec.id);
    expect(ended.delivery).toBeNull();
    expect(await s.callbacks.getJobState(`cb-${exec.id}`)).toBe('unknown');
  });
});

describe('a worker that stopped between ending a run and queuing its callback', () => {
  it('the run job, redelivered, finds its run ended and queues the callback then', async () => {
    s.setTarget((_req, res) => res.end('ok'));
    const { callback } = targetFor('/cb/late');
    // The run ended (as a worker that died right after storing the outcome left it) and nothing was queued.
    const exec = await s.storeExecution({
      kind: 'webhook',
      webhook_id: 'abcdefabcdefabcdefabcdef',
      agent_id: '42',
      ...OWNER,
      payload: 'x',
      max_attempts: 1,
      callback,
    });
    const started = new Date();
    const claimed = await s.executions.claim(exec.id, started, { claimant: 'test' });
    await s.executions.finish(
      exec.id,
      claimed!.attempt,
      { success: true, response_status: 200, response_output: 'done', error_message: null },
      new Date(),
      started,
    );
    expect(await s.callbacks.getJobState(`cb-${exec.id}`)).toBe('unknown');
    // Its job comes back (BullMQ redelivers a job whose worker died).
    await s.enqueue(exec);
    const ended = await delivered(exec.id, 1);
    expect(ended.delivery).toMatchObject({ attempts: 1, last_status: 200 });
    expect(deliveries('/cb/late')).toHaveLength(1);
    // The run was not run again.
    expect(s.agentCallsOf(exec.id)).toHaveLength(0);
    expect(ended.response_output).toBe('done');
  });
});
