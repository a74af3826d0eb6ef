import { producerConnection, type IORedis } from '@platform/queue';
import { createExecutionRepository, enqueueRun, type ExecutionRecord } from '@platform/scheduling';
import { captureLogger, createTestDatabases, testInfra, uniqueName, type TestDatabases } from '@platform/testing';
import { createOutboxSweeper } from '../src/triggers/outbox.sweeper';
import { createTestQueues, type TestQueues } from './queues';

// Real FerretDB and a real BullMQ queue on Redis (a prefix of this file's own).
let dbs: TestDatabases;
let redis: IORedis;
let q: TestQueues;
beforeAll(async () => {
  dbs = await createTestDatabases('outbox');
  redis = producerConnection(testInfra.redisUrl);
  q = createTestQueues(redis, uniqueName('q'));
});
afterAll(async () => {
  await q.close();
  redis.disconnect();
  await dbs.cleanup();
});

it('a backlog of queued runs that are on the queue does not hide a lost one behind it; idle sweeps rest', async () => {
  const executions = createExecutionRepository(dbs.conn);
  await executions.init();
  const made: ExecutionRecord[] = [];
  for (let i = 0; i < 7; i++) {
    made.push(await executions.create({ kind: 'webhook', user_id: 'u', org_id: 'o', payload: i, max_attempts: 1 }, new Date(Date.UTC(2026, 0, 1, 0, 0, i))));
  }
  const lost = made[5]!.id; // the only one whose job Redis lacks
  for (const e of made) if (e.id !== lost) await enqueueRun(q.queues, e, { timeoutMs: 2_000, backoffMs: 1_000 });
  const enqueued: string[] = [];
  let reads = 0;
  const sweeper = (batch: number) => createOutboxSweeper({
    executions: {
      ...executions,
      pendingEnqueue: (...args: Parameters<typeof executions.pendingEnqueue>) => {
        reads++;
        return executions.pendingEnqueue(...args);
      },
    },
    enqueue: async (e) => {
      enqueued.push(e.id);
      await enqueueRun(q.queues, e, { timeoutMs: 2_000, backoffMs: 1_000 });
    },
    hasJob: async (e) => Boolean(await q.queues.agentRuns.getJob(e.id)),
    clock: () => new Date(Date.UTC(2026, 0, 2)),
    logger: captureLogger('outbox').logger,
    graceMs: 0,
    batch,
  });
  const sweep = sweeper(2);
  const moved: number[] = [];
  for (let i = 0; i < 4; i++) moved.push(await sweep());
  expect(enqueued).toEqual([lost]); // reached on the third batch, not stuck on the two oldest
  expect(await q.queues.agentRuns.getJob(lost)).toBeDefined();
  expect(moved.reduce((a, b) => a + b, 0)).toBe(1);

  // Nothing left to move: after each idle round it rests one interval longer (it still looks now and then).
  const idle = sweeper(10); // one batch is a whole round here
  reads = 0;
  for (let i = 0; i < 20; i++) expect(await idle()).toBe(0);
  expect(reads).toBe(6); // sweeps 1, 2, 5, 9, 14 and 20 read
});
