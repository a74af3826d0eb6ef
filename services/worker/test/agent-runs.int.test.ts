import type { ServerResponse } from 'node:http';

import { eventually, INFERENCE_PATH, OWNER, startWorkerStack, type WorkerStack } from './worker-stack';

let s: WorkerStack;

beforeAll(async () => {
  s = await startWorkerStack({ agentRunTimeoutMs: 1_000 });
}, 30_000);
afterAll(() => s.close(), 30_000);

beforeEach(() => s.setAgent(reply(200, (m) => ({ response: `echo: ${m}` }))));

type Body = { agent_id: string; session_id: string; message: string };

/** An agent stand-in answering `status` with the JSON `make(message)`. */
function reply(status: number, make: (message: string) => unknown) {
  return (req: { json: unknown }, res: ServerResponse) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(make((req.json as Body).message)));
  };
}

/** An agent stand-in answering with `first` for the first `n` calls of each execution, then with `then`. */
function failingFirst(n: number, first: ReturnType<typeof reply>, then: ReturnType<typeof reply>) {
  const seen = new Map<string, number>();
  return (req: { json: unknown }, res: ServerResponse) => {
    const session = (req.json as Body).session_id;
    const count = (seen.get(session) ?? 0) + 1;
    seen.set(session, count);
    return (count <= n ? first : then)(req, res);
  };
}

/**
 * The schedule's run statistics once written: the worker records them just after storing the outcome, and writes
 * them in the background.
 */
async function expectScheduleStats(id: string, want: { run_count: number; last_run_success: boolean }) {
  const after = await eventually(
    `statistics of schedule ${id}`,
    async () => {
      await s.runtime.flush();
      const r = await s.schedules.getById(id);
      return r && r.run_count === want.run_count ? r : undefined;
    },
    5_000,
  );
  expect(after).toMatchObject(want);
  return after;
}

describe('a run the agent answers', () => {
  it('calls the inference endpoint on the owner’s behalf and stores the answer', async () => {
    s.setAgent(reply(200, (m) => ({ response: `The answer to "${m}" is 42.`, session_id: 'x', agent_id: '7' })));
    const exec = await s.triggerWebhookRun({ payload: 'what is the answer?', agent_id: '7' });
    const done = await s.waitEnded(exec.id);

    expect(done).toMatchObject({
      status: 'succeeded',
      success: true,
      attempt: 1,
      response_status: 200,
      response_output: 'The answer to "what is the answer?" is 42.',
      error_message: null,
    });
    expect(Date.parse(done.finished_at!)).toBeGreaterThanOrEqual(Date.parse(done.started_at!));
    expect(done.duration_ms).toBeGreaterThanOrEqual(0);

    const calls = s.agentCallsOf(exec.id);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.method).toBe('POST');
    expect(call.url).toBe(INFERENCE_PATH);
    expect(call.headers['x-internal-secret']).toBe(s.internalSecret);
    expect(call.headers['x-on-behalf-of-user']).toBe(OWNER.user_id);
    expect(call.headers['x-on-behalf-of-org']).toBe(OWNER.org_id);
    expect(call.headers['x-api-key']).toBeUndefined();
    expect(call.json).toEqual({ agent_id: '7', session_id: `execution-${exec.id}`, message: 'what is the answer?' });
  });

  it('sends a JSON payload as its JSON text and stores a non-string answer as JSON', async () => {
    s.setAgent(reply(200, () => ({ response: { verdict: 'ok', score: 3 } })));
    const payload = { event: 'order.created', items: [1, 2], nested: { 'a.b': true } };
    const exec = await s.triggerWebhookRun({ payload });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'succeeded', response_output: '{"verdict":"ok","score":3}' });
    const [call] = s.agentCallsOf(exec.id);
    expect(JSON.parse((call!.json as Body).message)).toEqual(payload);
  });

  it('runs an agent schedule’s run-now with its message and records the run on the schedule', async () => {
    const schedule = await s.createAgentSchedule('daily digest please', '11');
    const exec = await s.runNow(schedule);
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({
      kind: 'agent_schedule',
      schedule_id: schedule.id,
      status: 'succeeded',
      response_output: 'echo: daily digest please',
    });
    expect(s.agentCallsOf(exec.id).map((c) => c.json)).toEqual([
      { agent_id: '11', session_id: `execution-${exec.id}`, message: 'daily digest please' },
    ]);

    const after = await expectScheduleStats(schedule.id, { run_count: 1, last_run_success: true });
    expect(after.last_run_at?.toISOString()).toBe(done.triggered_at);
  });

  it('ends a run whose execution names no agent as failed, without calling the agent service', async () => {
    const exec = await s.triggerWebhookRun({ payload: 'hi', agent_id: null });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({
      status: 'failed',
      success: false,
      attempt: 1,
      error_message: 'execution has no agent',
    });
    expect(s.agentCallsOf(exec.id)).toHaveLength(0);
  });
});

describe('transient failures of the agent run', () => {
  it('retries a 500 and succeeds on the next attempt, in the same session', async () => {
    s.setAgent(
      failingFirst(
        1,
        reply(500, () => ({ detail: 'provider exploded' })),
        reply(200, () => ({ response: 'second time lucky' })),
      ),
    );
    const exec = await s.triggerWebhookRun({ payload: 'try me', max_attempts: 3 });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      success: true,
      attempt: 2,
      response_status: 200,
      response_output: 'second time lucky',
      error_message: null,
    });
    const calls = s.agentCallsOf(exec.id);
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => c.json)).toEqual([calls[0]!.json, calls[0]!.json]);
  });

  it('retries a 429 like a 5xx', async () => {
    s.setAgent(
      failingFirst(
        1,
        reply(429, () => ({ detail: 'slow down' })),
        reply(200, () => ({ response: 'done' })),
      ),
    );
    const exec = await s.triggerWebhookRun({ payload: 'rate me' });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'succeeded', attempt: 2, response_output: 'done' });
    expect(s.agentCallsOf(exec.id)).toHaveLength(2);
  });

  it('ends failed after max attempts of 5xx, keeping the last status and detail', async () => {
    s.setAgent(reply(502, () => ({ detail: 'LLM provider error: upstream 500' })));
    const exec = await s.triggerWebhookRun({ payload: 'doomed', max_attempts: 3 });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({
      status: 'failed',
      success: false,
      attempt: 3,
      max_attempts: 3,
      response_status: 502,
      response_output: null,
      error_message: 'LLM provider error: upstream 500',
    });
    expect(s.agentCallsOf(exec.id)).toHaveLength(3);
  });

  it('spends an attempt on a run that outlasts AGENT_RUN_TIMEOUT_MS, then succeeds', async () => {
    const slowFirst = failingFirst(
      1,
      () => undefined,
      reply(200, () => ({ response: 'fast now' })),
    ); // the first call never answers
    s.setAgent(slowFirst);
    const exec = await s.triggerWebhookRun({ payload: 'slow', max_attempts: 2 });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'succeeded', attempt: 2, response_output: 'fast now' });
    expect(s.agentCallsOf(exec.id)).toHaveLength(2);
  });

  it('an agent schedule’s run is retried retry_delay apart and counted once on the schedule', async () => {
    const times: number[] = [];
    const handler = failingFirst(
      1,
      reply(500, () => ({ detail: 'boom' })),
      reply(200, () => ({ response: 'ok' })),
    );
    s.setAgent((req, res) => {
      times.push(Date.now());
      return handler(req, res);
    });
    const schedule = await s.createAgentSchedule('retry me', '12', { max_retries: 1, retry_delay: 1 });
    const exec = await s.runNow(schedule);
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'succeeded', attempt: 2, max_attempts: 2, retry_delay_ms: 1000 });
    expect(s.agentCallsOf(exec.id)).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    await expectScheduleStats(schedule.id, { run_count: 1, last_run_success: true });
  });
});

describe('an agent service that cannot take the call', () => {
  it('waits out 503s without spending an attempt', async () => {
    s.setAgent(
      failingFirst(
        2,
        reply(503, () => ({ detail: 'database unavailable' })),
        reply(200, () => ({ response: 'back' })),
      ),
    );
    const exec = await s.triggerWebhookRun({ payload: 'patience', max_attempts: 1 });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'succeeded', attempt: 1, max_attempts: 1, response_output: 'back' });
    expect(s.agentCallsOf(exec.id)).toHaveLength(3);
    expect(
      s.lines.some(
        (l) => l.includes('store unreachable; job waits without spending an attempt') && l.includes('agent-runs'),
      ),
    ).toBe(true);
  });

  it('waits while the agent service is unreachable and runs the same attempt once it is back', async () => {
    await s.agentDoor.shut();
    try {
      const exec = await s.triggerWebhookRun({ payload: 'anyone there?', max_attempts: 1 });
      // The job waits: the run is claimed (attempt 1), the attempt is kept for when the job comes back, and the
      // job is delayed rather than failed.
      const job = await eventually('the job to wait for the agent service', async () => {
        const j = await s.queues.agentRuns.getJob(exec.id);
        const data = j?.data as { resume_attempt?: number } | undefined;
        return j && data?.resume_attempt === 1 && (await j.getState()) === 'delayed' ? j : undefined;
      });
      expect(job.attemptsMade).toBe(0);
      await new Promise((r) => setTimeout(r, 500)); // a few more waits (100 → 400 ms apart)
      expect(await s.executions.get(exec.id)).toMatchObject({ status: 'running', attempt: 1, error_message: null });
      expect(s.agentCallsOf(exec.id)).toHaveLength(0);

      await s.agentDoor.open();
      const done = await s.waitEnded(exec.id);
      expect(done).toMatchObject({ status: 'succeeded', attempt: 1, response_output: 'echo: anyone there?' });
      expect(s.agentCallsOf(exec.id)).toHaveLength(1);
    } finally {
      await s.agentDoor.open();
    }
  });
});

describe('final failures', () => {
  it.each([
    [404, { detail: 'Agent not found' }, 'Agent not found'],
    [400, { detail: 'Invalid Permission' }, 'Invalid Permission'],
    [
      422,
      { detail: [{ msg: 'message is required' }, { msg: 'agent_id is invalid' }] },
      'message is required; agent_id is invalid',
    ],
  ])('a %i ends the run failed at once, without retries', async (status, body, error) => {
    s.setAgent(reply(status, () => body));
    const exec = await s.triggerWebhookRun({ payload: 'nope', max_attempts: 3 });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({
      status: 'failed',
      success: false,
      attempt: 1,
      response_status: status,
      response_output: null,
      error_message: error,
    });
    expect(s.agentCallsOf(exec.id)).toHaveLength(1);
  });
});
