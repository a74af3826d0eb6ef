import {
  addFire,
  fireJobId,
  fireKeyOf,
  nextFire,
  removeFiring,
  syncFiring,
  type ExecutionRecord,
} from '@platform/scheduling';

import { eventually, OWNER, startWorkerStack, type WorkerStack } from './worker-stack';

// Every instant is derived from the real now. A fire's time may lie ahead of now: the fire processor turns whatever
// fire job it is given into an execution, whenever that job is taken.
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const DAILY = '15 9 * * *';
const ZONE = 'Asia/Kolkata';

let s: WorkerStack;

beforeAll(async () => {
  s = await startWorkerStack();
}, 30_000);
afterAll(() => s.close(), 30_000);

/** The next fire of the daily test cron after `from`. */
const nextDaily = (from = Date.now()) => nextFire(DAILY, ZONE, from)!;

/** Queues a fire by hand as the reconciler does, and waits until the worker has handled it. */
async function fire(scheduleId: string, fireMs: number): Promise<void> {
  await addFire(s.fires, scheduleId, fireMs, 2_000);
  await s.waitJob(s.fires, `fire:${scheduleId}:${fireMs}`);
}

/** Waits until `n` executions of the schedule exist and have all ended. */
const waitRuns = (scheduleId: string, n: number) =>
  eventually(`${n} ended runs of ${scheduleId}`, async () => {
    const list = await s.executionsOf(scheduleId);
    return list.length === n && list.every((e) => ['succeeded', 'failed', 'skipped'].includes(e.status))
      ? list
      : undefined;
  });

const logged = (text: string, scheduleId: string) =>
  s.lines.filter((l) => l.includes(text) && l.includes(scheduleId)).length;

describe('a fire of an agent schedule', () => {
  it('becomes one execution of the fire, whose run calls the agent with the schedule’s message', async () => {
    const schedule = await s.createAgentSchedule('morning report', '21', {
      cron_expression: DAILY,
      timezone: ZONE,
      max_retries: 2,
      retry_delay: 5,
    });
    const fireMs = nextDaily();
    await fire(schedule.id, fireMs);
    const [run] = await waitRuns(schedule.id, 1);

    expect(run).toMatchObject<Partial<ExecutionRecord>>({
      kind: 'agent_schedule',
      schedule_id: schedule.id,
      agent_id: '21',
      user_id: OWNER.user_id,
      org_id: OWNER.org_id,
      payload: 'morning report',
      max_attempts: 3,
      retry_delay_ms: 5_000,
      scheduled_for: new Date(fireMs).toISOString(),
      fire_key: fireKeyOf(schedule.id, fireMs),
      status: 'succeeded',
      attempt: 1,
      response_output: 'echo: morning report',
    });
    expect(s.agentCallsOf(run!.id).map((c) => c.json)).toEqual([
      { agent_id: '21', session_id: `execution-${run!.id}`, message: 'morning report' },
    ]);
  });

  it('two fires of a schedule are two executions', async () => {
    const schedule = await s.createAgentSchedule('twice', '22', { cron_expression: DAILY, timezone: ZONE });
    const first = nextDaily();
    const second = nextDaily(first);
    expect(second - first).toBe(DAY);
    await Promise.all([fire(schedule.id, first), fire(schedule.id, second)]);
    const runs = await waitRuns(schedule.id, 2);
    expect(runs.map((r) => r.scheduled_for).sort()).toEqual([
      new Date(first).toISOString(),
      new Date(second).toISOString(),
    ]);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
  });

  it('a fire taken after later fires fell due runs once, standing for them', async () => {
    const at = new Date(Date.now() - 10 * MINUTE);
    const schedule = await s.createAgentSchedule('behind', '23', { cron_expression: '* * * * *', at });
    const fireMs = nextFire('* * * * *', 'UTC', at.getTime() + 4 * MINUTE)!;
    await fire(schedule.id, fireMs);
    const runs = await waitRuns(schedule.id, 1);
    expect(runs[0]).toMatchObject({ status: 'succeeded', scheduled_for: new Date(fireMs).toISOString() });
    expect(logged('fire taken late', schedule.id)).toBe(1);
  });
});

describe('one execution per fire', () => {
  it('the scheduler’s fire job and a catch-up of the same fire, handled at once, make one execution and one run', async () => {
    const schedule = await s.createAgentSchedule('only once', '31', { cron_expression: DAILY, timezone: ZONE });
    await syncFiring(s.fires, schedule);
    const fireMs = nextDaily();
    const scheduled = await s.fires.getJob(fireJobId(schedule.id, fireMs));
    expect(scheduled).toBeDefined();
    try {
      await Promise.all([scheduled!.promote(), addFire(s.fires, schedule.id, fireMs, 2_000)]);
      await Promise.all([
        s.waitJob(s.fires, fireJobId(schedule.id, fireMs)),
        s.waitJob(s.fires, `fire:${schedule.id}:${fireMs}`),
      ]);
    } finally {
      await removeFiring(s.fires, schedule.id);
    }
    const [run, ...others] = await waitRuns(schedule.id, 1);
    expect(others).toHaveLength(0);
    expect(run).toMatchObject({ status: 'succeeded', fire_key: fireKeyOf(schedule.id, fireMs) });
    expect(s.agentCallsOf(run!.id)).toHaveLength(1);
    expect(logged('fire already handled by another replica', schedule.id)).toBe(1);
  });

  it('the same fire job processed twice makes one execution, and its run is not run again', async () => {
    const schedule = await s.createAgentSchedule('redelivered fire', '32', { cron_expression: DAILY, timezone: ZONE });
    const fireMs = nextDaily();
    await fire(schedule.id, fireMs);
    const [first] = await waitRuns(schedule.id, 1);

    const job = await s.fires.getJob(`fire:${schedule.id}:${fireMs}`);
    await job!.retry('completed');
    await s.waitJob(s.fires, job!.id!);
    await eventually('the second handling of the fire', async () =>
      logged('fire already handled by another replica', schedule.id) === 1 ? true : undefined,
    );

    const runs = await s.executionsOf(schedule.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toEqual(first);
    expect(s.agentCallsOf(first!.id)).toHaveLength(1);
  });
});

describe('fires that must not run', () => {
  const cases: [string, (at: number) => Promise<{ id: string; fireMs: number }>, string][] = [
    [
      'of a paused schedule',
      async (at) => ({
        id: (await s.createAgentSchedule('paused', '41', { cron_expression: DAILY, timezone: ZONE, is_active: false }))
          .id,
        fireMs: nextDaily(at),
      }),
      'schedule paused',
    ],
    [
      'of a deleted schedule',
      async (at) => {
        const r = await s.createAgentSchedule('deleted', '42', { cron_expression: DAILY, timezone: ZONE });
        await s.schedules.delete(OWNER, 'agent', r.id);
        return { id: r.id, fireMs: nextDaily(at) };
      },
      'schedule deleted',
    ],
    [
      'at a time that is not one of the cron',
      async (at) => ({
        id: (await s.createAgentSchedule('off cron', '43', { cron_expression: DAILY, timezone: ZONE })).id,
        fireMs: nextDaily(at) + MINUTE,
      }),
      'fire is not a time of the current cron',
    ],
    [
      'from before the schedule’s activation',
      async (at) => ({
        id: (await s.createAgentSchedule('too early', '44', { cron_expression: DAILY, timezone: ZONE })).id,
        fireMs: nextDaily(at - 3 * DAY),
      }),
      'fire predates the current cron or activation',
    ],
  ];

  it.each(cases)('a fire %s is dropped without an execution', async (_name, make, reason) => {
    const { id, fireMs } = await make(Date.now());
    await fire(id, fireMs);
    expect(await s.executionsOf(id)).toHaveLength(0);
    await eventually(
      'the fire dropped line',
      () => s.lines.some((l) => l.includes('fire dropped') && l.includes(id) && l.includes(reason)) || undefined,
    );
  });
});

describe('overlap policy', () => {
  it('skip: a fire while a run of the schedule is unfinished is recorded as skipped and does not run', async () => {
    const schedule = await s.createAgentSchedule('no overlap', '51', {
      cron_expression: DAILY,
      timezone: ZONE,
      overlap_policy: 'skip',
    });
    // A run still waiting for its turn (stored, not yet on a queue).
    const pending = await s.storeExecution({
      kind: 'agent_schedule',
      schedule_id: schedule.id,
      agent_id: '51',
      ...OWNER,
      payload: 'no overlap',
      max_attempts: 1,
      retry_delay_ms: 1000,
    });
    const fireMs = nextDaily();
    await fire(schedule.id, fireMs);
    const runs = await s.executionsOf(schedule.id);
    expect(runs).toHaveLength(2);
    const skipped = runs.find((r) => r.id !== pending.id);
    expect(skipped).toMatchObject({
      status: 'skipped',
      attempt: 0,
      scheduled_for: new Date(fireMs).toISOString(),
      fire_key: fireKeyOf(schedule.id, fireMs),
      error_message: 'skipped: the previous run was still going (overlap_policy skip)',
    });
    expect(s.agentCallsOf(skipped!.id)).toHaveLength(0);
    expect(await s.queues.agentRuns.getJob(skipped!.id)).toBeUndefined();
  });

  it('allow: a fire while a run is unfinished runs beside it', async () => {
    const schedule = await s.createAgentSchedule('overlap ok', '52', {
      cron_expression: DAILY,
      timezone: ZONE,
      overlap_policy: 'allow',
    });
    const pending = await s.storeExecution({
      kind: 'agent_schedule',
      schedule_id: schedule.id,
      agent_id: '52',
      ...OWNER,
      payload: 'overlap ok',
      max_attempts: 1,
      retry_delay_ms: 1000,
    });
    await fire(schedule.id, nextDaily());
    const ran = await eventually('the fire’s run', async () => {
      const r = (await s.executionsOf(schedule.id)).find((e) => e.id !== pending.id);
      return r?.status === 'succeeded' ? r : undefined;
    });
    expect(s.agentCallsOf(ran.id)).toHaveLength(1);
  });
});

describe('a fire of an HTTP schedule', () => {
  it('records the request without header values and calls the endpoint with them opened', async () => {
    const schedule = await s.createHttpSchedule(
      {
        url: `${s.target.url}/cron-hook`,
        method: 'POST',
        headers: { 'X-Api-Token': 'tok-very-secret' },
        query: { src: 'cron' },
        body: { ping: 1 },
        timeout_ms: 2_000,
      },
      { cron_expression: DAILY, timezone: ZONE },
    );
    const fireMs = nextDaily();
    await fire(schedule.id, fireMs);
    const [run] = await waitRuns(schedule.id, 1);
    expect(run).toMatchObject({
      kind: 'http_schedule',
      status: 'succeeded',
      response_status: 200,
      response_output: 'ok',
      scheduled_for: new Date(fireMs).toISOString(),
      payload: {
        method: 'POST',
        url: `${s.target.url}/cron-hook`,
        query: { src: 'cron' },
        body: { ping: 1 },
        timeout_ms: 2_000,
        headers: ['X-Api-Token'],
      },
    });
    expect(JSON.stringify(run)).not.toContain('tok-very-secret');
    const got = s.target.requests.filter((r) => r.url.startsWith('/cron-hook'));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ method: 'POST', url: '/cron-hook?src=cron', json: { ping: 1 } });
    expect(got[0]!.headers['x-api-token']).toBe('tok-very-secret');
  });
});
