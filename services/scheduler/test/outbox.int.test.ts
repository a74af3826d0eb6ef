import { createExecutionRepository, type ExecutionRecord } from '@platform/scheduling';
import { captureLogger, createTestDatabases, type TestDatabases } from '@platform/testing';
import { createOutboxSweeper } from '../src/triggers/outbox.sweeper';

let dbs: TestDatabases;
beforeAll(async () => {
  dbs = await createTestDatabases('outbox');
});
afterAll(() => dbs.cleanup());

it('a backlog of queued runs that are on the queue does not hide a lost one behind it; idle sweeps rest', async () => {
  const executions = createExecutionRepository(dbs.conn);
  await executions.init();
  const made: ExecutionRecord[] = [];
  for (let i = 0; i < 7; i++) {
    made.push(await executions.create({ kind: 'webhook', user_id: 'u', org_id: 'o', payload: i, max_attempts: 1 }, new Date(Date.UTC(2026, 0, 1, 0, 0, i))));
  }
  const lost = made[5]!.id; // the only one whose job Redis lacks
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
    enqueue: async (e) => void enqueued.push(e.id),
    hasJob: async (e) => e.id !== lost || enqueued.includes(lost),
    clock: () => new Date(Date.UTC(2026, 0, 2)),
    logger: captureLogger('outbox').logger,
    graceMs: 0,
    batch,
  });
  const sweep = sweeper(2);
  const moved: number[] = [];
  for (let i = 0; i < 4; i++) moved.push(await sweep());
  expect(enqueued).toEqual([lost]); // reached on the third batch, not stuck on the two oldest
  expect(moved.reduce((a, b) => a + b, 0)).toBe(1);

  // Nothing left to move: after each idle round it rests one interval longer (it still looks now and then).
  const idle = sweeper(10); // one batch is a whole round here
  reads = 0;
  for (let i = 0; i < 20; i++) expect(await idle()).toBe(0);
  expect(reads).toBe(6); // sweeps 1, 2, 5, 9, 14 and 20 read
});
