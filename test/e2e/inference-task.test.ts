import { createServer, type Server } from 'node:http';
import request from 'supertest';

import type { InferenceTaskJob } from '@platform/agent-client';
import { listen, type RunningServer } from '@platform/http';
import {
  createQueue,
  producerConnection,
  QUEUE_NAMES,
  within,
  type Queue,
  type RedisConnection,
} from '@platform/queue';
import { captureLogger, freePort, testInfra } from '@platform/testing';

import { bullTaskQueue } from '../../services/agent/src/tasks/task.queue';
import { startInferenceFixture, type InferenceFixture } from '../../services/agent/test/inference-fixture';
import { createApp as createGateway } from '../../services/gateway/src/app';
import { eventually, startWorkerStack, type WorkerStack } from '../../services/worker/test/worker-stack';

// A background chat end to end: the real agent service takes the task and puts it on the real Redis queue, the real
// worker runtime takes the job and asks the agent service to run it, and the provider stand-in answers.
let w: WorkerStack;
let f: InferenceFixture;
let server: Server;
let gateway: RunningServer;
let producer: RedisConnection;
let queue: Queue<InferenceTaskJob>;
let alice: string;
let agentId: string;

beforeAll(async () => {
  const port = await freePort();
  w = await startWorkerStack({ agentServiceUrl: `http://127.0.0.1:${port}`, agentRunTimeoutMs: 10_000 });
  producer = producerConnection(testInfra.redisUrl);
  queue = createQueue<InferenceTaskJob>(QUEUE_NAMES.inferenceTasks, producer, {}, w.prefix);
  f = await startInferenceFixture({
    internalSecret: w.internalSecret,
    taskQueue: bullTaskQueue(queue, { enqueueTimeoutMs: 2_000, attempts: 3, backoffMs: 100 }),
  });
  server = createServer(f.t.app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  gateway = await listen(
    createGateway({
      logger: captureLogger('gateway').logger,
      upstreams: { agent: new URL(`http://127.0.0.1:${port}`) },
      timeoutMs: 5_000,
    }),
    0,
    undefined,
    '127.0.0.1',
  );
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  agentId = await f.agent(alice, {
    llm_credential_id: await f.credential(alice, 'openai'),
    features: [{ type: 'MEMORY', config: {} }],
  });
}, 30_000);
afterAll(async () => {
  await gateway.close(1_000);
  await new Promise((resolve) => server.close(resolve));
  await w.close();
  await within(2_000, queue.obliterate({ force: true })).catch(() => undefined);
  await queue.close();
  producer.disconnect();
  await f.close();
}, 30_000);

const task = (id: string) => request(f.t.app).get(`/v3/inference/task/${id}`).set('x-api-key', alice);
const ended = (id: string) =>
  eventually(`task ${id} to end`, async () => {
    const res = await task(id);
    return ['completed', 'failed'].includes(res.body.status as string) ? res.body : undefined;
  });

it('202 at once, then completed with the answer the provider gave, through the queue and the worker', async () => {
  const res = await request(f.t.app)
    .post('/v3/inference/task/')
    .set('x-api-key', alice)
    .send({ agent_id: agentId, session_id: 'bg', message: 'weekly report' });
  expect(res.status).toBe(202);
  const done = await ended(res.body.task_id as string);
  expect(done).toMatchObject({
    status: 'completed',
    result: { response: 'echo: weekly report', session_id: 'bg', agent_id: agentId },
  });
  expect(f.openai.bodies().some((b) => JSON.stringify(b).includes('weekly report'))).toBe(true);
  // The worker finishes its job once the agent service has answered (just after the task reads completed).
  await eventually('the job to complete', async () =>
    (await queue.getJobState(res.body.task_id as string)) === 'completed' ? true : undefined,
  );
});

it('through the gateway: 202, then the status read there carries the answer as result and as response', async () => {
  const via = `http://127.0.0.1:${gateway.port}`;
  const res = await request(via)
    .post('/v3/inference/task/')
    .set('x-api-key', alice)
    .send({ agent_id: agentId, session_id: 'gw', message: 'via the gateway' });
  expect(res.status).toBe(202);
  const id = res.body.task_id as string;
  const done = await eventually(`task ${id} to end`, async () => {
    // The path the hosted API's clients read a task at (the same endpoint as /v3/inference/task/{id}).
    const read = await request(via).get(`/v3/inference/chat/task/${id}`).set('x-api-key', alice);
    expect(read.status).toBe(200);
    return ['completed', 'failed'].includes(read.body.status as string) ? read.body : undefined;
  });
  const answer = { response: 'echo: via the gateway', session_id: 'gw', agent_id: agentId };
  expect(done).toMatchObject({ task_id: id, status: 'completed', result: answer, response: answer });
  const unknown = await request(via).get('/v3/inference/task/no-such-task').set('x-api-key', alice);
  expect(unknown.status).toBe(404);
});

it('a provider failing once is retried by the worker and the task still completes', async () => {
  const before = f.openai.bodies().length;
  f.openai.script(
    ...[1, 2, 3].map(() => ({ status: 500, body: { error: { message: 'overloaded', type: 'server_error' } } })),
  );
  const res = await request(f.t.app)
    .post('/v3/inference/task/')
    .set('x-api-key', alice)
    .send({ agent_id: agentId, session_id: 'bg2', message: 'again' });
  const done = await ended(res.body.task_id as string);
  expect(done).toMatchObject({ status: 'completed', result: { response: 'echo: again' } });
  // The state first, then the job: a job read before its state turned completed can hold the attempt count of the
  // attempt still running.
  const job = await eventually('the job to complete', async () =>
    (await queue.getJobState(res.body.task_id as string)) === 'completed'
      ? queue.getJob(res.body.task_id as string)
      : undefined,
  );
  // The worker asked the agent service twice: the first time met the three failures (the provider client's own
  // retries included) and answered an error, the second succeeded. Stated together so that a failure shows which way
  // it went: provider calls made meanwhile by something else, a job that stalled, or a third call. BullMQ counts the
  // first as an attempt when the answer was a transient failure (502), not when the agent service said it could not
  // take the call (503, its own store slow under load): the job then waits without spending one, so `attemptsMade`
  // is 2 or 1, and what is checked is the calls.
  const runCalls = f.t.lines
    .filter(
      (l) => l.includes('"message":"request"') && l.includes(`/v3/inference/task/${String(res.body.task_id)}/run`),
    )
    .map((l) => (JSON.parse(l) as { status: number }).status);
  expect({
    runCalls: runCalls.map((status) => (status >= 500 ? 'failed' : status)),
    providerCalls: f.openai.bodies().length - before,
    stalled: job.stalledCounter,
  }).toEqual({ runCalls: ['failed', 200], providerCalls: 4, stalled: 0 });
  expect(job.attemptsMade).toBe(runCalls[0] === 503 ? 1 : 2);
});
