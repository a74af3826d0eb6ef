/**
 * Cron schedules at scale: N HTTP schedules firing every minute (`* * * * *`), against the real scheduler process
 * (API, reconciler into Redis) and two real worker processes, on a fresh database and queue prefix. A local target
 * server (outside the product) answers 200 at once and records every hit (schedule, arrival time). Over a window
 * of whole fire minutes it reports, per fire (schedule × minute): whether an execution exists and was run, the
 * start lag against the nominal fire time, duplicates (executions per fire key, hits at the target per fire) and
 * misses, and the throughput sustained. Drops its databases, obliterates its queues and stops its processes.
 */
import { createTestDatabases, type TestDatabases } from '@platform/testing';

import { printServiceLogs, reportBurstsAndFloor, reportFigures } from './report';
import { createSchedules, waitForJobSchedulers } from './schedules';
import { startCronStack } from './stack';
import { fireWindow, measureBursts, watchTimeline } from './window';

const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
/** Stops processes, obliterates the queues, drops the databases: once, whatever happened. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of cleanups.reverse())
      await c().catch((err: unknown) => process.stderr.write(`cleanup: ${(err as Error).message}\n`));
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    process.stderr.write(`bench/cron: ${sig}, cleaning up\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const dbs: TestDatabases = await createTestDatabases('bench_cron');
  cleanups.push(() => dbs.cleanup());
  const stack = await startCronStack(dbs, cleanups);

  // --- create the schedules
  const { createStart, created } = await createSchedules(stack);

  // --- wait until Redis has a job scheduler for every schedule
  const ready = await waitForJobSchedulers(stack.fires, createStart, created);

  const w = fireWindow(ready);
  const burstCpu = measureBursts(stack, w);
  const observedUntil = await watchTimeline(stack, w);
  // Stop the services first so that FerretDB answers the reads below (runs in progress finish within the grace).
  await Promise.all(stack.procs.map((p) => p.stop(10_000)));

  // --- figures
  const startLag = await reportFigures(stack, w, { started, createStart, created, ready, observedUntil });
  printServiceLogs(stack.procs);
  await reportBurstsAndFloor(await burstCpu, startLag, stack.dbs);
}

main()
  .then(
    () => 0,
    (err: unknown) => {
      process.stderr.write(`bench/cron failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      return 1;
    },
  )
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  });
