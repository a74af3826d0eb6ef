import { Registry } from 'prom-client';

import { mongoose } from '@platform/db';
import {
  createQueue,
  createWorker,
  producerConnection,
  QUEUE_NAMES,
  workerConnection,
  type RedisConnection,
  type Worker,
} from '@platform/queue';
import {
  callbackJobId,
  createExecutionRepository,
  createRunRecovery,
  createScheduleStats,
  createWebhookStats,
  enqueueRun,
  executionJobs,
  executionRunStore,
  runJobId,
  type CallbackJob,
  type ExecutionRecord,
  type ExecutionRepository,
} from '@platform/scheduling';
import { captureLogger, createTestDatabases, testInfra, uniqueName, type TestDatabases } from '@platform/testing';

import { startRunRecovery } from '../src/runs/run-recovery';
import { createTestQueues, type TestQueues } from './queues';

// The recovery rule (the scheduler's outbox) on real FerretDB and real BullMQ queues (a prefix of this file's own).
let dbs: TestDatabases;
let redis: RedisConnection;
let q: TestQueues;
let prefix: string;
let executions: ExecutionRepository;
const workers: Worker[] = [];
const enqueueOpts = { timeoutMs: 2_000, backoffMs: 1_000 };
const owner = { user_id: 'u', org_id: 'o' };

beforeAll(async () => {
  dbs = await createTestDatabases('outbox');
  redis = producerConnection(testInfra.redisUrl);
  prefix = uniqueName('q');
  q = createTestQueues(redis, prefix);
  executions = createExecutionRepository(dbs.conn);
  await executions.init();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await q.close();
  redis.disconnect();
  await dbs.cleanup();
});

/** A recovery sweep over this file's executions and queues, at `at`, with small bounds. */
function recovery(at: Date, opts: { batch?: number; maxRecoveries?: number; reads?: { n: number } } = {}) {
  const store = executionRunStore(executions);
  const counted = {
    ...store,
    unfinished: (x: Parameters<typeof store.unfinished>[0]) => (opts.reads && opts.reads.n++, store.unfinished(x)),
  };
  return createRunRecovery({
    store: counted,
    jobs: executionJobs(q.queues, enqueueOpts, (id) => executions.get(id)),
    clock: () => at,
    logger: captureLogger('outbox').logger,
    queuedAfterMs: 1_000,
    runningAfterMs: 60_000,
    maxRecoveries: opts.maxRecoveries ?? 3,
    batch: opts.batch,
  });
}

/** The outbox unit as main.ts starts it, sweeping every 50 ms, on this file's executions and queues. */
function outboxUnit(extra: Pick<Parameters<typeof startRunRecovery>[0], 'registry' | 'callbacks'>) {
  const { logger } = captureLogger('outbox');
  return startRunRecovery({
    executions,
    queues: q.queues,
    enqueue: enqueueOpts,
    stats: { webhooks: createWebhookStats(dbs.conn, logger), schedules: createScheduleStats(dbs.conn, logger) },
    logger,
    intervalMs: 50,
    queuedAfterMs: 1_000,
    runningAfterMs: 60_000,
    maxRecoveries: 3,
    ...extra,
  });
}

const run = (at: Date, payload: unknown = 'm') =>
  executions.create({ kind: 'webhook', webhook_id: 'w-outbox', ...owner, payload, max_attempts: 1 }, at);

/** A worker on the agent-runs queue that fails or completes every job without touching its execution. */
async function settleJobsWith(outcome: 'fail' | 'complete', jobIds: string[]): Promise<void> {
  const done = new Set<string>();
  const w = createWorker<{ execution_id: string }>(
    'agent-runs',
    async (job) => {
      done.add(String(job.id));
      if (outcome === 'fail') throw new Error('worker gave up');
    },
    workerConnection(testInfra.redisUrl),
    { prefix, concurrency: 4 },
  );
  workers.push(w);
  const deadline = Date.now() + 10_000;
  while (!jobIds.every((id) => done.has(id))) {
    if (Date.now() > deadline) throw new Error('jobs not settled');
    await new Promise((r) => setTimeout(r, 50));
  }
  await w.close();
  workers.splice(workers.indexOf(w), 1);
}

it('a backlog of queued runs that are on the queue does not hide a lost one behind it; idle sweeps rest', async () => {
  const t0 = new Date(Date.now() - 3600_000);
  const made: ExecutionRecord[] = [];
  for (let i = 0; i < 7; i++) made.push(await run(new Date(t0.getTime() + i * 1000), i));
  const lost = made[5]!.id; // the only one whose job Redis lacks
  for (const e of made) if (e.id !== lost) await enqueueRun(q.queues, e, enqueueOpts);
  const sweep = recovery(new Date(), { batch: 2 });
  const tallies = [];
  for (let i = 0; i < 4; i++) tallies.push(await sweep());
  expect(tallies.map((t) => t.enqueued)).toEqual([0, 0, 1, 0]); // reached on the third batch, not stuck on the two oldest
  expect(await q.queues.agentRuns.getJobState(lost)).toBe('waiting');

  // Nothing left to move: after each idle round it rests one interval longer (it still looks now and then).
  const reads = { n: 0 };
  const idle = recovery(new Date(), { batch: 50, reads });
  for (let i = 0; i < 20; i++) expect((await idle()).enqueued).toBe(0);
  expect(reads.n).toBe(6); // sweeps 1, 2, 5, 9, 14 and 20 read: it rests at most 5 in a row
  await q.queues.agentRuns.obliterate({ force: true });
  for (const e of made) await executions.abandon(e.id, 'test over', new Date());
});

it('a queued run whose job failed for good (its attempts used up) goes back on the queue under a new job id, once', async () => {
  const e = await run(new Date(Date.now() - 60_000));
  await enqueueRun(q.queues, e, enqueueOpts);
  await settleJobsWith('fail', [e.id]);
  expect(await q.queues.agentRuns.getJobState(e.id)).toBe('failed');
  // Re-adding under the same id is what used to be done: BullMQ ignores it and the run stays queued forever.
  const [a, b] = await Promise.all([recovery(new Date())(), recovery(new Date())()]); // two scheduler replicas
  expect(a.recovered + b.recovered).toBe(1);
  expect(await q.queues.agentRuns.getJobState(runJobId(e.id, 1))).toBe('waiting');
  expect(await executions.get(e.id)).toMatchObject({ status: 'queued' });
  expect(
    (await executions.unfinished({ queuedBefore: new Date(), runningBefore: new Date(), limit: 1000 })).runs.find(
      (r) => r.id === e.id,
    )?.recoveries,
  ).toBe(1);
  // Its new job is alive: the next sweep leaves it alone.
  expect((await recovery(new Date())()).recovered).toBe(0);
  await q.queues.agentRuns.obliterate({ force: true });
  await executions.abandon(e.id, 'test over', new Date());
});

it('a running run whose job completed or vanished is recovered only once it has run longer than any run lasts', async () => {
  const started = new Date(Date.now() - 30_000);
  const e = await run(new Date(started.getTime() - 1000));
  await enqueueRun(q.queues, e, enqueueOpts);
  await settleJobsWith('complete', [e.id]);
  await executions.claim(e.id, started, { claimant: 'test' });
  expect((await recovery(new Date())()).recovered).toBe(0); // 30 s: may still be running somewhere
  const later = recovery(new Date(started.getTime() + 61_000));
  expect((await later()).recovered).toBe(1);
  expect(await q.queues.agentRuns.getJobState(runJobId(e.id, 1))).toBe('waiting');
  await q.queues.agentRuns.obliterate({ force: true });
  await executions.abandon(e.id, 'test over', new Date());
});

it('a run recovered MAX_RECOVERIES times ends as failed, saying why', async () => {
  const e = await run(new Date(Date.now() - 60_000));
  for (let k = 0; k <= 2; k++) {
    await enqueueRun(q.queues, e, enqueueOpts, runJobId(e.id, k));
    await settleJobsWith('fail', [runJobId(e.id, k)]);
    expect((await recovery(new Date(), { maxRecoveries: 2 })()).recovered).toBe(k < 2 ? 1 : 0);
  }
  const ended = await executions.get(e.id);
  expect(ended).toMatchObject({
    status: 'failed',
    success: false,
    error_message: 'abandoned: its job was lost or gave up 3 times',
  });
  await q.queues.agentRuns.obliterate({ force: true });
});

it('the outbox unit reports its backlog and what it moved as metrics', async () => {
  const registry = new Registry();
  const lost = await run(new Date(Date.now() - 10_000), 'lost-for-metrics'); // stored, never queued (Redis was away)
  const unit = outboxUnit({ registry });
  try {
    const value = async (name: string, labels: Record<string, string> = {}) =>
      (await registry.getSingleMetric(name)!.get()).values.find((v) =>
        Object.entries(labels).every(([k, x]) => v.labels[k] === x),
      )?.value ?? 0;
    const deadline = Date.now() + 10_000;
    while ((await value('outbox_runs_total', { action: 'enqueued' })) < 1 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(await value('outbox_runs_total', { action: 'enqueued' })).toBeGreaterThanOrEqual(1);
    expect(await q.queues.agentRuns.getJobState(lost.id)).not.toBe('unknown');
    expect(await value('outbox_backlog_runs')).toBeGreaterThanOrEqual(0);
  } finally {
    unit.stop();
  }
});

it('a run the outbox ends (abandoned) with a callback_url has its completion callback queued', async () => {
  const callbacks = createQueue<CallbackJob>(QUEUE_NAMES.callbacks, redis, {}, prefix);
  const exec = await executions.create(
    {
      kind: 'webhook',
      webhook_id: 'w-outbox-cb',
      ...owner,
      payload: 'm',
      max_attempts: 1,
      callback: { url: 'https://receiver.example/cb', secret: 'sealed' },
    },
    new Date(Date.now() - 10_000),
  );
  // Running for long with no job alive, and put back on its queue as often as allowed: the next sweep gives it up.
  await dbs.conn
    .collection('executions')
    .updateOne(
      { _id: new mongoose.Types.ObjectId(exec.id) },
      { $set: { recoveries: 3, status: 'running', attempt: 1, started_at: new Date(Date.now() - 120_000) } },
    );
  const unit = outboxUnit({ callbacks });
  try {
    const deadline = Date.now() + 10_000;
    while ((await callbacks.getJobState(callbackJobId(exec.id))) === 'unknown' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(await callbacks.getJobState(callbackJobId(exec.id))).toBe('waiting');
    expect(await executions.get(exec.id)).toMatchObject({
      status: 'failed',
      error_message: expect.stringMatching(/^abandoned/),
    });
  } finally {
    unit.stop();
    await callbacks.obliterate({ force: true });
    await callbacks.close();
  }
});
