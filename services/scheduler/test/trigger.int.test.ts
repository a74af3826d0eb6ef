import request from 'supertest';

import { signSha256, signStandard } from '../src/webhooks/signature';
import { startTriggerStack, type TriggerStack } from './trigger-stack';

let s: TriggerStack;
beforeAll(async () => {
  s = await startTriggerStack({ workerEnv: { JOB_LOCK_MS: '5000', STALLED_INTERVAL_MS: '2000' } });
}, 60_000);
afterAll(() => s.close(), 30_000);

const llmCalls = () => s.llm.requests.length;
const lastUserMessage = () => {
  const messages = (s.llm.bodies().at(-1)?.messages ?? []) as { role: string; content: string }[];
  return messages.filter((m) => m.role === 'user').at(-1)?.content;
};
/** Webhook statistics are written off the request path: poll until they match. */
async function webhookWhen(match: (w: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  let w: Record<string, unknown> = {};
  for (let i = 0; i < 50; i++) {
    w = (await request(s.app).get(`/agent-webhooks/${s.webhook.id}`).set('x-api-key', s.key)).body;
    if (match(w)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return w;
}
const executionsOf = async () =>
  (await request(s.app).get(`/agent-webhooks/${s.webhook.id}/executions?limit=100`).set('x-api-key', s.key)).body;

describe('signature matrix', () => {
  const body = '{"event":"order.created","n":1}';
  const post = (headers: Record<string, string>, b: string = body) =>
    request(s.app)
      .post(`/webhook-trigger/${s.webhook.id}`)
      .set('content-type', 'application/json')
      .set(headers)
      .send(b);
  const valid = () => signSha256(s.webhook.secret_key, body);

  it.each([
    ['no header', () => ({})],
    ['empty', () => ({ 'x-webhook-signature': '' })],
    ['sha256= without hex', () => ({ 'x-webhook-signature': 'sha256=' })],
    ['wrong prefix', () => ({ 'x-webhook-signature': valid().replace('sha256', 'sha512') })],
    ['odd length', () => ({ 'x-webhook-signature': valid().slice(0, -1) })],
    ['non-hex', () => ({ 'x-webhook-signature': `sha256=${'g'.repeat(64)}` })],
    ['another webhook’s secret', () => ({ 'x-webhook-signature': signSha256('whsec_b3RoZXI=', body) })],
  ])('%s → 401 and nothing stored', async (_n, headers) => {
    const before = (await executionsOf()).total;
    const res = await post(headers());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid signature' });
    expect((await executionsOf()).total).toBe(before);
  });

  it('a valid signature over re-serialized JSON → 401', async () => {
    const res = await post({ 'x-webhook-signature': valid() }, JSON.stringify(JSON.parse(body), null, 2));
    expect(res.status).toBe(401);
  });

  it('one flipped body byte → 401', async () => {
    const flipped = body.replace('order', 'ordes'); // one byte: r (0x72) → s (0x73)
    expect((await post({ 'x-webhook-signature': valid() }, flipped)).status).toBe(401);
    expect((await post({ 'x-webhook-signature': valid() })).status).toBe(202); // and the original passes
  });

  it('Standard Webhooks: valid → 202; stale timestamp → 401; replayed id → 200 with no second run', async () => {
    const now = Math.floor(Date.now() / 1000);
    const id = `msg_${Date.now()}`;
    const first = await post(signStandard(s.webhook.secret_key, id, now, body));
    expect(first.status).toBe(202);
    await s.waitEnded(first.body.execution_id);
    const calls = llmCalls();
    const stale = await post(signStandard(s.webhook.secret_key, `${id}b`, now - 301, body));
    expect(stale.status).toBe(401);
    const replay = await post(signStandard(s.webhook.secret_key, id, now, body));
    expect(replay.status).toBe(200);
    expect(replay.body.execution_id).toBe(first.body.execution_id);
    await new Promise((r) => setTimeout(r, 500));
    expect(llmCalls()).toBe(calls);
  });
});

describe('accepted trigger → queue → worker → agent run', () => {
  it('202 after storing; the run completes once with the body as the message; stats move', async () => {
    // Earlier tests' triggers may still be held back (statistics coalesce to one write a second).
    await s.flushStats();
    const before = (await request(s.app).get(`/agent-webhooks/${s.webhook.id}`).set('x-api-key', s.key)).body;
    const res = await s.trigger('{"ticket":7,"text":"printer on fire"}');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      message: 'Webhook accepted',
      execution_id: expect.stringMatching(/^[0-9a-f]{24}$/),
      status: 'queued',
    });
    const done = await s.waitEnded(res.body.execution_id);
    expect(done).toMatchObject({
      status: 'succeeded',
      success: true,
      attempt: 1,
      response_status: 200,
      response_output: 'echo: {"ticket":7,"text":"printer on fire"}',
      payload: { ticket: 7, text: 'printer on fire' },
      agent_id: s.agentId,
      webhook_id: s.webhook.id,
    });
    expect(done.duration_ms).toEqual(expect.any(Number));
    expect(lastUserMessage()).toBe('{"ticket":7,"text":"printer on fire"}');
    const after = await webhookWhen(
      (w) => w.trigger_count === before.trigger_count + 1 && w.last_trigger_success === true,
    );
    expect(after.trigger_count).toBe(before.trigger_count + 1);
    expect(after.last_triggered_at).toEqual(expect.any(String));
    expect(after.last_trigger_success).toBe(true);
  });

  it('a payload with $-keys, dotted keys and nested arrays is stored and shown exactly as sent', async () => {
    const body = '{"$schema":"x","a.b":{"$ref":"#/c"},"m":[[1,[2]],[]]}';
    const res = await s.trigger(body);
    expect(res.status).toBe(202);
    const done = await s.waitEnded(res.body.execution_id);
    expect(done.payload).toEqual(JSON.parse(body));
    expect(lastUserMessage()).toBe(body);
  });

  it('a signed body with U+0000 in a string → 422 string_nul at the field', async () => {
    const res = await s.trigger('{"note":"a\\u0000b"}');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'note'], type: 'string_nul' });
  });

  it('a JSON string body is the message itself', async () => {
    const res = await s.trigger('"Summarize today’s orders"');
    await s.waitEnded(res.body.execution_id);
    expect(lastUserMessage()).toBe('Summarize today’s orders');
  });

  it('a provider that keeps failing: retried, then failed, and last_trigger_success false', async () => {
    s.llm.script(...Array.from({ length: 9 }, () => ({ status: 500, body: { error: { message: 'overloaded' } } })));
    const res = await s.trigger('{"will":"fail"}');
    expect(res.status).toBe(202);
    const done = await s.waitEnded(res.body.execution_id, 30_000);
    expect(done).toMatchObject({ status: 'failed', success: false, attempt: 3, max_attempts: 3, response_status: 502 });
    expect(done.error_message).toContain('LLM provider error');
    const hook = await webhookWhen((w) => w.last_trigger_success === false);
    expect(hook.last_trigger_success).toBe(false);
  }, 40_000);

  it('a body near the 1 MiB limit, full of characters JSON escapes, still runs', async () => {
    const body = JSON.stringify({ text: '"\\'.repeat(200_000) });
    expect(body.length).toBeLessThan(1024 * 1024);
    const res = await s.trigger(body);
    expect(res.status).toBe(202);
    const done = await s.waitEnded(res.body.execution_id);
    expect(done.status).toBe('succeeded');
    expect(lastUserMessage()).toBe(body);
  });

  it('a 4xx from the agent service is final at once: no retry, a readable error', async () => {
    const agent = await request(s.agentService.url)
      .post('/v3/agents/')
      .set('x-api-key', s.key)
      .send({ name: 'No credential' });
    const hook = await request(s.app)
      .post('/agent-webhooks/')
      .set('x-api-key', s.key)
      .send({ agent_id: String(agent.body.agent_id) });
    const body = '{"order":1}';
    const res = await request(s.app)
      .post(`/webhook-trigger/${hook.body.id}`)
      .set('content-type', 'application/json')
      .set('x-webhook-signature', signSha256(hook.body.secret_key, body))
      .send(body);
    expect(res.status).toBe(202);
    const done = await s.waitEnded(res.body.execution_id);
    expect(done).toMatchObject({ status: 'failed', attempt: 1, response_status: 422 });
    expect(done.error_message).toMatch(/^Agent \d+ has no llm_credential_id/);
  });

  it('an Idempotency-Key replay → 200 with the same execution and exactly one run', async () => {
    const calls = llmCalls();
    const body = '{"order":99}';
    const first = await s.trigger(body, { 'idempotency-key': `order-99-${Date.now()}` });
    const key = first.request.getHeader('idempotency-key') as string;
    const again = await s.trigger(body, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ execution_id: first.body.execution_id });
    await s.waitEnded(first.body.execution_id);
    await new Promise((r) => setTimeout(r, 500));
    expect(llmCalls()).toBe(calls + 1);
  });
});

describe('refusals', () => {
  it('paused → 409 and no execution; resumed → accepted again', async () => {
    await request(s.app).post(`/agent-webhooks/${s.webhook.id}/pause`).set('x-api-key', s.key).expect(200);
    const before = (await executionsOf()).total;
    const res = await s.trigger('{"x":1}');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'Webhook is paused' });
    expect((await executionsOf()).total).toBe(before);
    await request(s.app).post(`/agent-webhooks/${s.webhook.id}/resume`).set('x-api-key', s.key).expect(200);
    expect((await s.trigger('{"x":2}')).status).toBe(202);
  });

  it('unknown or malformed webhook id → 404', async () => {
    for (const id of ['0123456789abcdef01234567', 'nope']) {
      const res = await request(s.app)
        .post(`/webhook-trigger/${id}`)
        .set('x-webhook-signature', 'sha256=00')
        .send('{}');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Webhook not found' });
    }
  });

  it('a body over 1 MiB → 413', async () => {
    const big = JSON.stringify({ blob: 'x'.repeat(1024 * 1024) });
    const res = await s.trigger(big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body too large' });
  });

  it('a signed body that is not JSON → 422 json_invalid; an empty one too', async () => {
    for (const body of ['not json', '']) {
      const res = await s.trigger(body, { 'content-type': 'text/plain' });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    }
  });
});

describe('secret rotation', () => {
  it('the old secret works within its grace and not after a zero grace', async () => {
    const old = s.webhook.secret_key;
    const rotated = await request(s.app)
      .post(`/agent-webhooks/${s.webhook.id}/regenerate-secret?grace_seconds=3600`)
      .set('x-api-key', s.key);
    expect(rotated.status).toBe(200);
    expect((await s.trigger('{"k":"old"}', {}, old)).status).toBe(202);
    expect((await s.trigger('{"k":"new"}', {}, rotated.body.secret_key)).status).toBe(202);
    const again = await request(s.app)
      .post(`/agent-webhooks/${s.webhook.id}/regenerate-secret?grace_seconds=0`)
      .set('x-api-key', s.key);
    expect((await s.trigger('{"k":"old2"}', {}, rotated.body.secret_key)).status).toBe(401);
    s.webhook.secret_key = again.body.secret_key;
    expect((await s.trigger('{"k":"newest"}')).status).toBe(202);
  });
});

describe('executions endpoints', () => {
  it('lists a webhook’s executions newest first, filters by success, and hides them from other owners', async () => {
    const all = await executionsOf();
    expect(all.total).toBeGreaterThan(3);
    expect(all.executions[0]).toEqual(
      expect.objectContaining({ id: expect.any(String), kind: 'webhook', webhook_id: s.webhook.id, user_id: 'alice' }),
    );
    expect(all.executions[0]).not.toHaveProperty('org_id');
    const times = all.executions.map((e: { triggered_at: string }) => e.triggered_at);
    expect([...times].sort().reverse()).toEqual(times);
    const failed = await request(s.app)
      .get(`/agent-webhooks/${s.webhook.id}/executions?success=false`)
      .set('x-api-key', s.key);
    expect(failed.body.executions.every((e: { success: boolean }) => e.success === false)).toBe(true);
    const mallory = await s.dbs.mintKey({ user_id: 'mallory', org_id: 'acme' });
    expect(
      (await request(s.app).get(`/agent-webhooks/${s.webhook.id}/executions`).set('x-api-key', mallory)).status,
    ).toBe(404);
    const theirs = await request(s.app).get('/agent-webhooks/executions/recent').set('x-api-key', mallory);
    expect(theirs.body).toEqual({ executions: [], total: 0 });
  });

  it('recent: by agent and hours, with validation', async () => {
    const recent = await request(s.app)
      .get(`/agent-webhooks/executions/recent?agent_id=${s.agentId}&hours=1&limit=5`)
      .set('x-api-key', s.key);
    expect(recent.status).toBe(200);
    expect(recent.body.executions).toHaveLength(5);
    expect(recent.body.total).toBeGreaterThan(5);
    for (const q of ['hours=0', 'hours=721', 'limit=0', 'success=maybe']) {
      const res = await request(s.app).get(`/agent-webhooks/executions/recent?${q}`).set('x-api-key', s.key);
      expect(res.status).toBe(422);
    }
    expect((await request(s.app).get('/agent-webhooks/executions/recent')).status).toBe(403);
  });
});
