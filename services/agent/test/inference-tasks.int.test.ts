import request from 'supertest';

import type { InferenceTaskJob } from '@platform/agent-client';
import { expireNow } from '@platform/db';
import {
  createQueue,
  IORedis,
  producerConnection,
  QUEUE_NAMES,
  type Queue,
  type RedisConnection,
} from '@platform/queue';
import { eventually, privateRedis, testInfra, uniqueName } from '@platform/testing';

import { bullTaskQueue } from '../src/tasks/task.queue';
import { TASK_RETENTION_MS } from '../src/tasks/task.service';
import { startInferenceFixture, type InferenceFixture } from './inference-fixture';

// The agent service's side of inference tasks (contract §7): accepted once stored and queued on the real Redis
// queue; each attempt is run by the worker's internal call, which this file makes itself (the worker's side and the
// whole path through the real worker are tested in the worker's tests and test/e2e).
const SECRET = 'worker-secret-1f2e3d4c5b6a79880716253443526170';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const openAiError = (message: string) => ({ error: { message, type: 'server_error' } });

let f: InferenceFixture;
let producer: RedisConnection;
let queue: Queue<InferenceTaskJob>;
let alice: string;
let bob: string;
let eve: string;
let agentId: string;
let offsetMs = 0;

beforeAll(async () => {
  producer = producerConnection(testInfra.redisUrl);
  queue = createQueue<InferenceTaskJob>(QUEUE_NAMES.inferenceTasks, producer, {}, uniqueName('tq'));
  f = await startInferenceFixture({
    internalSecret: SECRET,
    taskQueue: bullTaskQueue(queue, { enqueueTimeoutMs: 2_000, attempts: 3, backoffMs: 1_000 }),
    clock: () => new Date(Date.now() + offsetMs),
  });
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await f.t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  eve = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'other-org' });
  agentId = await f.agent(alice, { llm_credential_id: await f.credential(alice, 'openai') });
});
afterAll(async () => {
  await f.close();
  await queue.obliterate({ force: true });
  await queue.close();
  producer.disconnect();
});
afterEach(() => {
  offsetMs = 0;
});

const submit = (key: string, body: Record<string, unknown>) =>
  request(f.t.app).post('/v3/inference/task/').set('x-api-key', key).send(body);
const getTask = (key: string, id: string) => request(f.t.app).get(`/v3/inference/task/${id}`).set('x-api-key', key);
const internal = (user: string, org: string) => ({
  'x-internal-secret': SECRET,
  'x-on-behalf-of-user': user,
  'x-on-behalf-of-org': org,
});
const run = (id: string, final = false, owner = internal('alice', 'acme')) =>
  request(f.t.app).post(`/v3/inference/task/${id}/run`).set(owner).send({ final });

async function newTask(message = 'background question'): Promise<string> {
  const res = await submit(alice, { agent_id: agentId, session_id: uniqueName('s'), message });
  expect(res.status).toBe(202);
  return res.body.task_id as string;
}

describe('POST /v3/inference/task/', () => {
  it('202 {task_id, status: queued} once stored and queued: the job names the task and its owner', async () => {
    const res = await submit(alice, { agent_id: agentId, session_id: 'bg-1', message: 'summarise the day' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ task_id: expect.stringMatching(UUID), status: 'queued' });
    const job = await queue.getJob(res.body.task_id);
    expect(job?.data).toEqual({
      task_id: res.body.task_id,
      user_id: 'alice',
      org_id: 'acme',
      request_id: res.headers['x-request-id'],
    });
    expect(job?.opts.attempts).toBe(3);

    const got = await getTask(alice, res.body.task_id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      task_id: res.body.task_id,
      status: 'queued',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(new Date(got.body.created_at).toISOString()).toBe(got.body.created_at);
    expect(f.openai.requests.filter((r) => JSON.stringify(r.json).includes('summarise the day'))).toHaveLength(0);
  });

  it.each([
    ['no message', { session_id: 's' }],
    ['no session_id', { message: 'hi' }],
    ['a message that is not text', { session_id: 's', message: 42 }],
  ])('%s → 422, nothing queued', async (_n, body) => {
    const before = await queue.count();
    const res = await submit(alice, { agent_id: agentId, ...body });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    expect(await queue.count()).toBe(before);
  });

  it("another owner's or an unknown agent → 404 Agent not found, nothing queued", async () => {
    const before = await queue.count();
    for (const [key, agent] of [
      [bob, agentId],
      [eve, agentId],
      [alice, '999999'],
    ] as const) {
      const res = await submit(key, { agent_id: agent, session_id: 's', message: 'hi' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Agent not found' });
    }
    expect(await queue.count()).toBe(before);
  });

  it('without an API key → 403, as every route', async () => {
    const res = await request(f.t.app)
      .post('/v3/inference/task/')
      .send({ agent_id: agentId, session_id: 's', message: 'hi' });
    expect(res.status).toBe(403);
    expect((await request(f.t.app).get(`/v3/inference/task/${await newTask()}`)).status).toBe(403);
  });

  it('a queue that cannot take the task → 503 and the task is not left queued', async () => {
    // A real Redis that takes no command (CLIENT PAUSE): the add cannot finish within the enqueue time limit.
    const redis = await privateRedis();
    await redis.start();
    const admin = new IORedis(redis.url);
    await admin.call('CLIENT', 'PAUSE', '20000', 'ALL');
    const stuck = producerConnection(redis.url);
    stuck.on('error', () => undefined);
    const stuckQueue = createQueue<InferenceTaskJob>(QUEUE_NAMES.inferenceTasks, stuck, {}, uniqueName('tq'));
    stuckQueue.on('error', () => undefined);
    const g = await startInferenceFixture({
      internalSecret: SECRET,
      taskQueue: bullTaskQueue(stuckQueue, { enqueueTimeoutMs: 300, attempts: 3, backoffMs: 1_000 }),
    });
    try {
      const key = await g.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
      const agent = await g.agent(key, { llm_credential_id: await g.credential(key, 'openai') });
      const res = await request(g.t.app)
        .post('/v3/inference/task/')
        .set('x-api-key', key)
        .send({ agent_id: agent, session_id: 's', message: 'hi' });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'Task queue unavailable' });
      const stored = await g.t.dbs.conn.collection('inference_tasks').find({}).toArray();
      expect(stored.map((t) => t.status)).toEqual(['failed']);
    } finally {
      await g.close();
      stuck.disconnect();
      admin.disconnect();
      await redis.stop();
    }
  });
});

describe('GET /v3/inference/task/{task_id}', () => {
  it("another user's, another organization's, an unknown or a malformed id → 404 Task not found", async () => {
    const id = await newTask();
    const cases: [string, string][] = [
      [bob, id],
      [eve, id],
      [alice, '00000000-0000-4000-8000-000000000000'],
      [alice, 'not-a-task'],
      [alice, `${id}x`],
    ];
    for (const [key, path] of cases) {
      const res = await getTask(key, path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Task not found' });
    }
  });

  it('is kept 7 days, then gone', async () => {
    const id = await newTask();
    offsetMs = TASK_RETENTION_MS - 60_000;
    expect((await getTask(alice, id)).status).toBe(200);
    offsetMs = TASK_RETENTION_MS + 1_000;
    expect((await getTask(alice, id)).body).toEqual({ detail: 'Task not found' });
    expect((await run(id)).status).toBe(404);
  });

  it('once expired, is removed from the database by the TTL index on expires_at', async () => {
    offsetMs = -TASK_RETENTION_MS - 1_000; // submitted 7 days and a second ago: expired already
    const id = await newTask();
    offsetMs = 0;
    const tasks = f.t.dbs.conn.collection('inference_tasks');
    // MongoDB's TTL monitor removes it within a minute; expireNow does at once what the development server's adapter
    // does once a minute (and nothing on MongoDB).
    await eventually(
      'the expired task removed',
      async () => {
        await expireNow(f.t.dbs.conn);
        return (await tasks.countDocuments({ _id: id as never })) === 0 ? true : undefined;
      },
      120_000,
    );
    expect(await tasks.countDocuments({ _id: id as never })).toBe(0);
  }, 150_000);
});

describe('/v3/inference/chat/task: the same endpoints under the path some public clients call', () => {
  it('accepts a task, queues it, and reads it (with its result once run) like /v3/inference/task/', async () => {
    const session = uniqueName('s');
    const res = await request(f.t.app)
      .post('/v3/inference/chat/task')
      .set('x-api-key', alice)
      .send({ agent_id: agentId, session_id: session, message: 'alias question' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ task_id: expect.stringMatching(UUID), status: 'queued' });
    expect((await queue.getJob(res.body.task_id))?.data.task_id).toBe(res.body.task_id);
    const read = (key: string) =>
      request(f.t.app).get(`/v3/inference/chat/task/${res.body.task_id}`).set('x-api-key', key);
    expect((await read(alice)).body).toEqual((await getTask(alice, res.body.task_id)).body);
    expect((await read(alice)).body.status).toBe('queued');
    expect((await run(res.body.task_id)).status).toBe(200);
    expect((await read(alice)).body).toMatchObject({
      status: 'completed',
      result: { response: 'echo: alias question', session_id: session, agent_id: agentId },
    });
    // Clients of the hosted API read the reply under `response`: the same object as `result`.
    expect((await read(alice)).body.response).toEqual((await read(alice)).body.result);
    expect((await read(bob)).body).toEqual({ detail: 'Task not found' });
    const bad = await request(f.t.app)
      .post('/v3/inference/chat/task/')
      .set('x-api-key', alice)
      .send({ agent_id: agentId });
    expect(bad.status).toBe(422);
    expect((await request(f.t.app).post('/v3/inference/chat/task').send({})).status).toBe(403);
  });
});

describe('the worker’s attempts (internal path)', () => {
  it('a successful attempt completes the task with chat’s result and saves memory; a redelivery runs nothing', async () => {
    const session = uniqueName('s');
    const res = await submit(alice, { agent_id: agentId, session_id: session, message: 'what is due?' });
    const id = res.body.task_id as string;
    const calls = f.openai.requests.length;

    const attempt = await run(id);
    expect(attempt.status).toBe(200);
    expect(attempt.body).toEqual({ task_id: id, status: 'completed' });
    const got = await getTask(alice, id);
    expect(got.body).toMatchObject({
      task_id: id,
      status: 'completed',
      result: { response: 'echo: what is due?', session_id: session, agent_id: agentId },
    });
    expect(got.body.response).toEqual(got.body.result);
    expect(got.body.error).toBeUndefined();
    expect(Date.parse(got.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(got.body.created_at));
    const history = await request(f.t.app).get(`/v3/inference/sessions/${session}/messages`).set('x-api-key', alice);
    expect(history.body.total).toBe(2);

    expect((await run(id)).body).toEqual({ task_id: id, status: 'completed' });
    expect(f.openai.requests.length - calls).toBe(1);
  });

  it('a transient failure puts the task back to queued with the error (502 to the worker); the final one ends it failed', async () => {
    const id = await newTask();
    f.openai.script({ status: 400, body: openAiError('model overloaded') });
    const first = await run(id);
    expect(first.status).toBe(502);
    let got = await getTask(alice, id);
    expect(got.body).toMatchObject({ status: 'queued', error: 'LLM provider error: 400 model overloaded' });

    f.openai.script({ status: 400, body: openAiError('model overloaded') });
    const last = await run(id, true);
    expect(last.body).toEqual({ task_id: id, status: 'failed' });
    got = await getTask(alice, id);
    expect(got.body).toMatchObject({ status: 'failed', error: 'LLM provider error: 400 model overloaded' });
    expect(got.body.result).toBeUndefined();
    expect(got.body.response).toBeUndefined();
  });

  it('an agent deleted before the attempt ends the task failed at once (not retried)', async () => {
    const doomed = await f.agent(alice, { llm_credential_id: await f.credential(alice, 'openai') });
    const res = await submit(alice, { agent_id: doomed, session_id: 's', message: 'hi' });
    expect((await request(f.t.app).delete(`/v3/agents/${doomed}`).set('x-api-key', alice)).status).toBe(204);
    expect((await run(res.body.task_id as string)).body).toEqual({ task_id: res.body.task_id, status: 'failed' });
    expect((await getTask(alice, res.body.task_id as string)).body).toMatchObject({
      status: 'failed',
      error: 'Agent not found',
    });
  });

  it('give-up marks a queued task failed and leaves an ended one as it is', async () => {
    const id = await newTask();
    const fail = (task: string) =>
      request(f.t.app)
        .post(`/v3/inference/task/${task}/fail`)
        .set(internal('alice', 'acme'))
        .send({ error: 'agent service unreachable' });
    expect((await fail(id)).body).toEqual({ task_id: id, status: 'failed' });
    expect((await getTask(alice, id)).body).toMatchObject({ status: 'failed', error: 'agent service unreachable' });

    const done = await newTask();
    await run(done);
    expect((await fail(done)).body).toEqual({ task_id: done, status: 'completed' });
    expect(
      (await request(f.t.app).post(`/v3/inference/task/${done}/fail`).set(internal('alice', 'acme')).send({})).status,
    ).toBe(422);
  });

  it('API keys cannot call the internal routes, and the worker acting for another owner finds nothing', async () => {
    const id = await newTask();
    for (const [path, body] of [
      ['run', { final: true }],
      ['fail', { error: 'x' }],
    ] as const) {
      const res = await request(f.t.app).post(`/v3/inference/task/${id}/${path}`).set('x-api-key', alice).send(body);
      expect(res.status).toBe(404);
    }
    expect((await run(id, false, internal('bob', 'acme'))).body).toEqual({ detail: 'Task not found' });
    expect(
      (
        await request(f.t.app)
          .post(`/v3/inference/task/${id}/run`)
          .set({ ...internal('alice', 'acme'), 'x-internal-secret': 'wrong' })
          .send({})
      ).status,
    ).toBe(403);
    expect((await getTask(alice, id)).body.status).toBe('queued');
  });
});
