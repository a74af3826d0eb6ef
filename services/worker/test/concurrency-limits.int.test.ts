import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

import { syncIndexes } from '@platform/db';
import {
  createConcurrencyGate,
  createQueue,
  producerConnection,
  QUEUE_NAMES,
  type ConcurrencyGate,
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
  monitorRedis,
  privateRedis,
  startLocalServer,
  startServiceProcess,
  testInfra,
  uniqueName,
  type LocalServer,
  type PrivateRedis,
  type RedisMonitor,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { expectTriggerOrder } from './start-order';
import { eventually, OWNER } from './worker-stack';

/**
 * Contract §8 `max_concurrency`, on the real stack: two worker processes (dist/main.js, as deployed) consume one
 * `agent-runs` queue on a Redis of this file's own; the agent service stands in as a local server that answers
 * slowly and counts the calls in flight, per agent and per webhook. Limits are published as their owners publish
 * them (the agent service and the scheduler: `setLimit` under the deployment's QUEUE_PREFIX; their own tests check
 * that create, update and delete do so). Runs over a limit stay `queued` on the queue and start in trigger order.
 */
const ANSWER_MS = 400;
const RECHECK_MS = 1_000;

let redis: PrivateRedis;
let dbs: TestDatabases;
let producer: RedisConnection;
let queues: RunQueues;
let executions: ExecutionRepository;
let gate: ConcurrencyGate;
let agent: LocalServer;
let monitor: RedisMonitor;
const workers: ServiceProcess[] = [];
const prefix = uniqueName('cq');

/** What the agent stand-in saw of one call. */
interface Call {
  execution_id: string;
  agent_id: string;
}
const calls: Call[] = [];
const inFlight = new Map<string, number>();
const peak = new Map<string, number>();
/** Webhook of each execution (the stand-in only sees the agent), to count calls in flight per webhook too. */
const webhookOf = new Map<string, string>();

/** While set, calls of `key` are answered once `n` of them have been in flight together (or after HOLD_BOUND_MS). */
let holdUntil: { key: string; n: number } | null = null;
const HOLD_BOUND_MS = 10_000;

const bump = (key: string, by: number) => {
  const n = (inFlight.get(key) ?? 0) + by;
  inFlight.set(key, n);
  peak.set(key, Math.max(peak.get(key) ?? 0, n));
};

beforeAll(async () => {
  redis = await privateRedis();
  dbs = await createTestDatabases('worker');
  executions = createExecutionRepository(dbs.conn);
  await syncIndexes(dbs.conn);
  producer = producerConnection(redis.url);
  producer.on('error', () => undefined);
  queues = {
    agentRuns: createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, producer, {}, prefix),
    httpCalls: createQueue<AgentRunJob>(QUEUE_NAMES.httpCalls, producer, {}, prefix),
  };
  for (const q of Object.values(queues) as Queue[]) q.on('error', () => undefined);
  gate = createConcurrencyGate({ redis: producer, prefix, leaseMs: 60_000, waitTtlMs: 60_000 });
  agent = await startLocalServer(async (req, res) => {
    const body = req.json as { agent_id: string; session_id: string; message: string };
    const executionId = body.session_id.replace(/^execution-/, '');
    const keys = [
      `agent:${body.agent_id}`,
      ...(webhookOf.has(executionId) ? [`webhook:${webhookOf.get(executionId)}`] : []),
    ];
    calls.push({ execution_id: executionId, agent_id: String(body.agent_id) });
    keys.forEach((k) => bump(k, 1));
    await new Promise((r) => setTimeout(r, ANSWER_MS));
    // A check that runs are not held back (no limit) holds each call until they are all in flight, within a bound:
    // how soon a loaded machine takes the last of them says nothing about a limit.
    const hold = holdUntil;
    for (let waited = 0; hold && keys.includes(hold.key) && (peak.get(hold.key) ?? 0) < hold.n; waited += 50) {
      if (waited >= HOLD_BOUND_MS) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    keys.forEach((k) => bump(k, -1));
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ response: `echo: ${body.message}`, session_id: body.session_id, agent_id: body.agent_id }),
    );
  });
  const env = {
    MONGODB_URI: testInfra.mongoUri,
    MONGODB_DB: dbs.conn.name,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    AGENT_SERVICE_URL: agent.url,
    INTERNAL_SERVICE_SECRET: randomBytes(32).toString('hex'),
    SCHEDULE_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    CONCURRENCY_RECHECK_MS: String(RECHECK_MS),
    AGENT_RUN_TIMEOUT_MS: '10000',
    LOG_LEVEL: 'warn',
  };
  const script = resolve(__dirname, '../dist/main.js');
  workers.push(...(await Promise.all([startServiceProcess({ script, env }), startServiceProcess({ script, env })])));
  monitor = await monitorRedis(redis.url);
}, 90_000);

afterAll(async () => {
  await monitor?.close();
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all(Object.values(queues ?? {}).map((q: Queue) => q.close()));
  producer?.disconnect();
  await agent?.close();
  await redis?.stop();
  await dbs?.cleanup();
}, 60_000);

/** Stores `n` webhook runs triggered 5 ms apart (oldest first) and puts them on the queue. */
async function burst(n: number, agentId: string, webhookId: string): Promise<ExecutionRecord[]> {
  const base = Date.now();
  const made = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      executions.create(
        {
          kind: 'webhook',
          webhook_id: webhookId,
          agent_id: agentId,
          ...OWNER,
          payload: `run ${i}`,
          max_attempts: 1,
        },
        new Date(base + 5 * i),
      ),
    ),
  );
  for (const e of made) webhookOf.set(e.id, webhookId);
  for (const e of made) await enqueueRun(queues, e, { timeoutMs: 2_000, backoffMs: 100 });
  return made;
}

const allEnded = (runs: ExecutionRecord[], timeoutMs = 30_000) =>
  eventually(
    `${runs.length} runs to end`,
    async () => {
      const got = await Promise.all(runs.map((r) => executions.get(r.id)));
      return got.every((e) => e && ['succeeded', 'failed'].includes(e.status)) ? (got as ExecutionRecord[]) : undefined;
    },
    timeoutMs,
  );

const callsOf = (runs: ExecutionRecord[]) => {
  const ids = new Set(runs.map((r) => r.id));
  return calls.filter((c) => ids.has(c.execution_id));
};

const webhookId = () => randomBytes(12).toString('hex');

it('a release wakes as many waiters as there are places free, in their order', async () => {
  const slot = { key: 'agent:gate-wake', limit: 3 };
  for (const h of ['a', 'b', 'c']) expect((await gate.acquire(h, [slot], 1)).granted).toBe(true);
  for (const [i, w] of ['w1', 'w2', 'w3', 'w4'].entries())
    expect((await gate.acquire(w, [slot], 10 + i)).granted).toBe(false);
  expect(await gate.release('a', [slot])).toEqual(['w1']);
  // Before w1 comes back, b and c end too: each release wakes the first waiters it has room for (w1 again, as it
  // has not taken its place yet), so the three places are not left to the waiters' next checks.
  expect(await gate.release('b', [slot])).toEqual(['w1', 'w2']);
  expect(await gate.release('c', [slot])).toEqual(['w1', 'w2', 'w3']);
  for (const [i, w] of ['w1', 'w2', 'w3'].entries()) expect((await gate.acquire(w, [slot], 10 + i)).granted).toBe(true);
  expect((await gate.acquire('w4', [slot], 13)).granted).toBe(false);
  for (const w of ['w1', 'w2', 'w3', 'w4']) await gate.release(w, [slot]);
});

it('an agent with max_concurrency 2: at most 2 runs in flight across both workers, each run once, in trigger order', async () => {
  await gate.setLimit('agent:501', 2);
  const runs = await burst(12, '501', webhookId());
  // Runs over the limit wait queued, not claimed.
  const waiting = await eventually('runs waiting for the limit', async () => {
    const got = await Promise.all(runs.map((r) => executions.get(r.id)));
    const running = got.filter((e) => e?.status === 'running').length;
    const queued = got.filter((e) => e?.status === 'queued').length;
    return running === 2 && queued >= 8 ? queued : undefined;
  });
  expect(waiting).toBeGreaterThanOrEqual(8);

  const ended = await allEnded(runs);
  expect(ended.map((e) => e.status)).toEqual(runs.map(() => 'succeeded'));
  expect(ended.every((e) => e.attempt === 1)).toBe(true);
  expect(peak.get('agent:501')).toBe(2);
  const seen = callsOf(runs);
  expect(seen).toHaveLength(12); // each run called the agent once
  expect(new Set(seen.map((c) => c.execution_id)).size).toBe(12);

  // The first two took the free places; after them, a call overtakes at most one run triggered before it (the one
  // let in with it, racing it on the wire): no run starts while an earlier one still waits for a place.
  const rank = new Map(runs.map((r, i) => [r.id, i]));
  expectTriggerOrder(
    seen.map((c) => rank.get(c.execution_id)!),
    2,
  );
}, 60_000);

it('a webhook with max_concurrency 1 on an agent without a limit runs one at a time', async () => {
  const hook = webhookId();
  await gate.setLimit(`webhook:${hook}`, 1);
  const runs = await burst(5, '502', hook);
  const ended = await allEnded(runs);
  expect(ended.every((e) => e.status === 'succeeded')).toBe(true);
  expect(peak.get(`webhook:${hook}`)).toBe(1);
  expect(callsOf(runs)).toHaveLength(5);
}, 60_000);

it('a changed limit takes effect for the runs after it; removing it lifts it', async () => {
  await gate.setLimit('agent:503', 1);
  const first = await burst(3, '503', webhookId());
  await allEnded(first);
  expect(peak.get('agent:503')).toBe(1);

  await gate.setLimit('agent:503', 3);
  peak.set('agent:503', 0);
  const second = await burst(6, '503', webhookId());
  await allEnded(second);
  expect(peak.get('agent:503')).toBe(3);

  await gate.setLimit('agent:503', null);
  peak.set('agent:503', 0);
  holdUntil = { key: 'agent:503', n: 5 };
  try {
    const third = await burst(5, '503', webhookId());
    await allEnded(third);
  } finally {
    holdUntil = null;
  }
  expect(peak.get('agent:503')).toBe(5);
}, 60_000);

it('a run without limits costs one extra Redis command (one MGET of its limits) and never touches the gate', async () => {
  const warm = await burst(1, '504', webhookId());
  await allEnded(warm);
  monitor.reset();
  const runs = await burst(6, '504', webhookId());
  await allEnded(runs);
  const seen = monitor.commands();
  const mgets = seen.filter((c) => /^mget /i.test(c));
  expect(mgets).toHaveLength(6);
  expect(mgets.every((c) => c.includes(`{${prefix}:gate}:limit:agent:504`))).toBe(true);
  // The gate's scripts (sent with EVAL; BullMQ's go by EVALSHA) never ran, and no other command named its keys.
  expect(seen.filter((c) => /^eval /i.test(c))).toEqual([]);
  expect(seen.filter((c) => c.includes(':gate}') && !/^mget /i.test(c))).toEqual([]);
}, 60_000);
