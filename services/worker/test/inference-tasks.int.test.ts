import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import type { InferenceTaskJob } from '@platform/agent-client';
import { withLogContext } from '@platform/logger';
import {
  addWithin,
  createQueue,
  producerConnection,
  QUEUE_NAMES,
  within,
  type Queue,
  type RedisConnection,
} from '@platform/queue';
import { testInfra, type ReceivedRequest } from '@platform/testing';

import { eventually, OWNER, startWorkerStack, type WorkerStack } from './worker-stack';

// The worker's side of inference tasks: the real runtime consumes `inference-tasks` from the real Redis queue and
// asks the agent service (a stand-in here; the real one in test/e2e) to run each attempt.
let s: WorkerStack;
let producer: RedisConnection;
let tasks: Queue<InferenceTaskJob>;

beforeAll(async () => {
  s = await startWorkerStack({ agentRunTimeoutMs: 2_000 });
  producer = producerConnection(testInfra.redisUrl);
  tasks = createQueue<InferenceTaskJob>(QUEUE_NAMES.inferenceTasks, producer, {}, s.prefix);
}, 30_000);
afterAll(async () => {
  await within(2_000, tasks.obliterate({ force: true })).catch(() => undefined);
  await tasks.close();
  producer.disconnect();
  await s.close();
}, 30_000);

type Answer = [status: number, body: unknown];

/** The agent service's task routes: answers `run` calls in turn (the last answer repeats), `fail` with `failed`. */
function agentAnswering(...runs: Answer[]) {
  let n = 0;
  s.setAgent((req: ReceivedRequest, res: ServerResponse) => {
    const [status, body] = req.url.endsWith('/fail')
      ? [200, { status: 'failed' }]
      : runs[Math.min(n++, runs.length - 1)]!;
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body));
  });
}

async function queueTask(attempts = 3): Promise<string> {
  const id = randomUUID();
  await tasks.add(
    'inference-task',
    { task_id: id, ...OWNER },
    { jobId: id, attempts, backoff: { type: 'fixed', delay: 50 } },
  );
  return id;
}

const callsOf = (id: string) => s.agent.requests.filter((r) => r.url.includes(id));
const finalFlags = (id: string) =>
  callsOf(id)
    .filter((r) => r.url.endsWith('/run'))
    .map((r) => (r.json as { final: boolean }).final);
const waitState = (id: string, state: 'completed' | 'failed') => s.waitJob(tasks as unknown as Queue<never>, id, state);

it('runs an attempt through the agent service on the owner’s behalf; the job completes', async () => {
  agentAnswering([200, { task_id: 'x', status: 'completed' }]);
  const id = await queueTask();
  await waitState(id, 'completed');
  const [call, ...more] = callsOf(id);
  expect(more).toHaveLength(0);
  expect(call).toMatchObject({ method: 'POST', url: `/v3/inference/task/${id}/run`, json: { final: false } });
  expect(call!.headers).toMatchObject({
    'x-internal-secret': s.internalSecret,
    'x-on-behalf-of-user': OWNER.user_id,
    'x-on-behalf-of-org': OWNER.org_id,
  });
  expect(call!.headers['x-api-key']).toBeUndefined();
});

it('retries a transient failure with backoff; only the last attempt is told it is final', async () => {
  agentAnswering(
    [502, { detail: 'LLM provider error: 500' }],
    [502, { detail: 'LLM provider error: 500' }],
    [200, { status: 'failed' }],
  );
  const id = await queueTask(3);
  await waitState(id, 'completed');
  expect(finalFlags(id)).toEqual([false, false, true]);
  expect(callsOf(id).some((r) => r.url.endsWith('/fail'))).toBe(false);
});

it('a task the agent service says is gone (expired) ends the job without retries', async () => {
  agentAnswering([404, { detail: 'Task not found' }]);
  const id = await queueTask();
  await waitState(id, 'completed');
  expect(callsOf(id)).toHaveLength(1);
});

it('when attempts run out without the service recording an end, give-up marks the task failed', async () => {
  agentAnswering([500, { detail: 'internal error' }]);
  const id = await queueTask(2);
  await waitState(id, 'failed');
  const fail = await eventually('the give-up call', async () => callsOf(id).find((r) => r.url.endsWith('/fail')));
  expect(finalFlags(id)).toEqual([false, true]);
  expect(fail.json).toEqual({ error: 'internal error' });
  expect(fail.headers['x-on-behalf-of-user']).toBe(OWNER.user_id);
});

it('waits while the agent service is unreachable, without spending an attempt, and runs once it is back', async () => {
  agentAnswering([200, { status: 'completed' }]);
  await s.agentDoor.shut();
  try {
    const id = await queueTask(1);
    const job = await eventually('the job to wait for the agent service', async () => {
      const j = await tasks.getJob(id);
      return j && (j.data as { store_waits?: number }).store_waits && (await j.getState()) === 'delayed'
        ? j
        : undefined;
    });
    expect(job.attemptsMade).toBe(0);
    await s.agentDoor.open();
    await waitState(id, 'completed');
    expect(finalFlags(id)).toEqual([true]);
  } finally {
    await s.agentDoor.open();
  }
});

it('carries the id of the request that queued the task into its log lines and its call to the agent service', async () => {
  agentAnswering([200, { status: 'completed' }]);
  const id = randomUUID();
  await withLogContext({ requestId: 'req-trace-1' }, () =>
    addWithin(tasks, 2_000, 'inference-task', { task_id: id, ...OWNER }, { jobId: id }),
  );
  expect((await tasks.getJob(id))?.data).toEqual({ task_id: id, ...OWNER, request_id: 'req-trace-1' });
  await waitState(id, 'completed');
  expect(callsOf(id)[0]!.headers['x-request-id']).toBe('req-trace-1');

  const untraced = await queueTask();
  await waitState(untraced, 'completed');
  expect(callsOf(untraced)[0]!.headers['x-request-id']).toBe(`job:inference-tasks:${untraced}`);
});
