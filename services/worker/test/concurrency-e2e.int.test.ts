import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import request from 'supertest';

import { syncIndexes } from '@platform/db';
import {
  createQueue,
  producerConnection,
  QUEUE_NAMES,
  within,
  type Queue,
  type RedisConnection,
} from '@platform/queue';
import {
  createExecutionRepository,
  enqueueRun,
  type AgentRunJob,
  type ExecutionRecord,
  type ExecutionRepository,
  type RunQueues,
} from '@platform/scheduling';
import {
  createTestDatabases,
  startLocalServer,
  startServiceProcess,
  testInfra,
  uniqueName,
  type LocalServer,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { expectTriggerOrder } from './start-order';
import { eventually } from './worker-stack';

/**
 * Contract §8 `max_concurrency` end to end, every part a real process of the deployment: the agent service
 * (dist/main.js) stores the agent's limit and publishes it under QUEUE_PREFIX; two worker processes apply it; the LLM
 * provider stands in as a local server that answers slowly and counts the calls in flight. Runs are stored and
 * queued as the scheduler's webhook trigger does. Changing the limit through the agent API changes what the workers
 * allow.
 */
const ANSWER_MS = 300;
const OWNER = { user_id: 'alice', org_id: 'acme' };

let dbs: TestDatabases;
let producer: RedisConnection;
let queues: RunQueues;
let executions: ExecutionRepository;
let provider: LocalServer;
let agentService: ServiceProcess;
const workers: ServiceProcess[] = [];
const prefix = uniqueName('ce');
let key: string;
let agentId: string;

let inFlight = 0;
let peak = 0;
/** The message of each provider call, in arrival order. */
const arrivals: { message: string }[] = [];

const completion = (content: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
});

beforeAll(async () => {
  dbs = await createTestDatabases('worker');
  executions = createExecutionRepository(dbs.conn);
  await syncIndexes(dbs.conn);
  producer = producerConnection(testInfra.redisUrl);
  producer.on('error', () => undefined);
  queues = {
    agentRuns: createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, producer, {}, prefix),
    httpCalls: createQueue<AgentRunJob>(QUEUE_NAMES.httpCalls, producer, {}, prefix),
  };
  provider = await startLocalServer(async (req, res) => {
    const messages = (req.json as { messages?: { role: string; content: unknown }[] }).messages ?? [];
    const user = messages.filter((m) => m.role === 'user').at(-1);
    arrivals.push({ message: String(user?.content ?? '') });
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((r) => setTimeout(r, ANSWER_MS));
    inFlight--;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(completion('done')));
  });
  const secret = randomBytes(32).toString('hex');
  const common = {
    MONGODB_URI: testInfra.mongoUri,
    REDIS_URL: testInfra.redisUrl,
    QUEUE_PREFIX: prefix,
    INTERNAL_SERVICE_SECRET: secret,
    LOG_LEVEL: 'warn',
  };
  agentService = await startServiceProcess({
    script: resolve(__dirname, '../../agent/dist/main.js'),
    env: {
      ...common,
      MONGODB_DB: `${dbs.conn.name}_agent`,
      AUTH_DB: dbs.authDb,
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${provider.port}`,
    },
  });
  const env = {
    ...common,
    MONGODB_DB: dbs.conn.name,
    AGENT_SERVICE_URL: agentService.url,
    SCHEDULE_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    CONCURRENCY_RECHECK_MS: '1000',
  };
  const script = resolve(__dirname, '../dist/main.js');
  workers.push(...(await Promise.all([startServiceProcess({ script, env }), startServiceProcess({ script, env })])));

  key = await dbs.mintKey(OWNER);
  const credential = await request(agentService.url)
    .post('/v3/providers/credentials')
    .set('x-api-key', key)
    .send({
      name: 'openai',
      provider_id: 'openai',
      credentials: { api_key: 'sk-proj-T3stK3y0penAi9x8c7v6b5n4m3l2k1j0', base_url: `${provider.url}/v1` },
    })
    .expect(201);
  const agent = await request(agentService.url)
    .post('/v3/agents/')
    .set('x-api-key', key)
    .send(agentBody({ llm_credential_id: credential.body.credential_id, max_concurrency: 2 }))
    .expect(201);
  agentId = String(agent.body.id);
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await agentService?.stop();
  for (const q of Object.values(queues ?? {}) as Queue[]) {
    await within(2_000, q.obliterate({ force: true })).catch(() => undefined);
    await q.close();
  }
  producer?.disconnect();
  await provider?.close();
  await dbs?.conn
    .useDb(`${dbs.conn.name}_agent`)
    .dropDatabase()
    .catch(() => undefined);
  await dbs?.cleanup();
}, 60_000);

const agentBody = (over: object) => ({
  name: 'Limited',
  system_prompt: 'You are terse.',
  provider_id: 'openai',
  model: 'gpt-4o-mini',
  features: [],
  ...over,
});

/** Stores `n` webhook runs of the agent triggered 5 ms apart (oldest first) and queues them. */
async function burst(n: number, tag: string): Promise<ExecutionRecord[]> {
  const base = Date.now();
  const made = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      executions.create(
        {
          kind: 'webhook',
          webhook_id: randomBytes(12).toString('hex'),
          agent_id: agentId,
          ...OWNER,
          payload: `${tag} ${i}`,
          max_attempts: 1,
        },
        new Date(base + 5 * i),
      ),
    ),
  );
  for (const e of made) await enqueueRun(queues, e, { timeoutMs: 2_000, backoffMs: 100 });
  return made;
}

const allEnded = (runs: ExecutionRecord[]) =>
  eventually(
    `${runs.length} runs to end`,
    async () => {
      const got = await Promise.all(runs.map((r) => executions.get(r.id)));
      return got.every((e) => e && ['succeeded', 'failed'].includes(e.status)) ? (got as ExecutionRecord[]) : undefined;
    },
    40_000,
  );

it('the limit set through the agent API holds across two workers: 2 provider calls at most, each run once, in order', async () => {
  peak = 0;
  const runs = await burst(12, 'first');
  const ended = await allEnded(runs);
  expect(ended.map((e) => [e.status, e.attempt])).toEqual(runs.map(() => ['succeeded', 1]));
  expect(peak).toBe(2);
  const seen = arrivals.filter((a) => a.message.startsWith('first '));
  expect(seen).toHaveLength(12);
  expect(new Set(seen.map((a) => a.message)).size).toBe(12);
  // After the first two (which took the free places), the provider saw the runs in trigger order: a run reaches it
  // before one triggered earlier only when both were let in together (at most one such, the limit being 2).
  expectTriggerOrder(
    seen.map((a) => Number(a.message.split(' ')[1])),
    2,
  );
}, 60_000);

it('changing the limit through the agent API changes what the workers allow', async () => {
  await request(agentService.url)
    .put(`/v3/agents/${agentId}`)
    .set('x-api-key', key)
    .send(agentBody({ llm_credential_id: (await agentRecord()).llm_credential_id, max_concurrency: 1 }))
    .expect(200);
  peak = 0;
  await allEnded(await burst(4, 'second'));
  expect(peak).toBe(1);

  await request(agentService.url)
    .put(`/v3/agents/${agentId}`)
    .set('x-api-key', key)
    .send(agentBody({ llm_credential_id: (await agentRecord()).llm_credential_id, max_concurrency: null }))
    .expect(200);
  peak = 0;
  await allEnded(await burst(5, 'third'));
  expect(peak).toBe(5);
}, 60_000);

async function agentRecord(): Promise<{ llm_credential_id: string; max_concurrency: number | null }> {
  const res = await request(agentService.url).get(`/v3/agents/${agentId}`).set('x-api-key', key).expect(200);
  return res.body as { llm_credential_id: string; max_concurrency: number | null };
}
