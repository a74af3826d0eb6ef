import request from 'supertest';

import { startTriggerStack, type TriggerStack } from './trigger-stack';

// Agent schedules end to end: the scheduler app, the real agent service and worker processes, real BullMQ and
// FerretDB; only the LLM provider is a local stand-in.
let s: TriggerStack;

beforeAll(async () => {
  s = await startTriggerStack();
}, 90_000);
afterAll(() => s.close(), 30_000);

const api = (method: 'get' | 'post', path: string, body?: object) =>
  request(s.app)[method](path).set('x-api-key', s.key).send(body);

it('a cron fire runs the agent with the schedule message, once, and the schedule records the run', async () => {
  const created = await api('post', '/schedules/', {
    agent_id: s.agentId,
    cron_expression: '* * * * *',
    message: 'Summarise the day',
  });
  expect(created.status).toBe(201);
  const id = created.body.id;
  // Make the next fire due now instead of waiting for the minute (the worker process computes the one after).
  const job = (await s.fires.getDelayed()).find((j) => String(j.id).startsWith(`repeat:${id}:`));
  expect(job).toBeDefined();
  await job!.promote();

  const logs = await waitLogs(id, 1);
  expect(logs[0]).toMatchObject({
    kind: 'agent_schedule',
    status: 'succeeded',
    success: true,
    attempt: 1,
    payload: 'Summarise the day',
    response_output: 'echo: Summarise the day',
    scheduled_for: new Date(Number(String(job!.id).split(':')[2])).toISOString(),
  });
  const next = (await s.fires.getDelayed()).filter((j) => String(j.id).startsWith(`repeat:${id}:`));
  expect(next).toHaveLength(1);
  expect(Number(String(next[0]!.id).split(':')[2])).toBeGreaterThan(Number(String(job!.id).split(':')[2]));

  const read = await waitFor(async () => {
    const r = await api('get', `/schedules/${id}`);
    return r.body.last_run_success === true ? r : null;
  });
  expect(read.body.run_count).toBe(1);
  expect(read.body.last_run_at).not.toBeNull();
});

it('run now works outside the cron and a failing provider is retried, then recorded', async () => {
  const created = await api('post', '/schedules/', {
    agent_id: s.agentId,
    cron_expression: '0 0 1 1 *',
    message: 'now',
    max_retries: 1,
    retry_delay: 1,
  });
  // The agent service retries a provider 5xx twice itself; both worker attempts see three failures each.
  const failure = { status: 500, headers: { 'retry-after': '0' }, body: { error: { message: 'overloaded' } } };
  s.llm.script(...Array.from({ length: 6 }, () => failure));
  const run = await api('post', `/schedules/${created.body.id}/trigger`);
  expect(run.status).toBe(202);
  const [exec] = await waitLogs(created.body.id, 1);
  expect(exec).toMatchObject({ id: run.body.execution_id, status: 'failed', attempt: 2, max_attempts: 2 });
  expect(exec?.error_message).toMatch(/overloaded|502|provider/i);
});

async function waitLogs(id: string, n: number): Promise<Record<string, unknown>[]> {
  return waitFor(async () => {
    const r = await api('get', `/schedules/${id}/logs`);
    const ended = r.body.executions.filter((e: { status: string }) => ['succeeded', 'failed'].includes(e.status));
    return ended.length >= n ? ended : null;
  });
}

async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}
