import { testInfra } from '@platform/testing';

import { startChaosStack } from './chaos-stack';

/** This process's open sockets, servers and child processes, counted by kind. */
function handles(): Map<string, number> {
  const byKind = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo())
    if (/TCP|Pipe|Process/.test(kind)) byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  return byKind;
}

// A stack that fails to start (here its scheduler refuses its settings) rejects and stops what it had started, or its
// connections would keep jest running after the failure (it once waited out the whole lane's time limit).
it('a stack whose scheduler cannot start rejects, and leaves nothing open', async () => {
  const before = handles();
  const stack = startChaosStack({
    mongoUri: testInfra.mongoUri,
    redisUrl: testInfra.redisUrl,
    schedulerEnv: { LOG_LEVEL: 'nonsense' },
  });
  await expect(stack).rejects.toThrow(/scheduler\/dist\/main\.js exited \(78\) before it was ready:[^]*LOG_LEVEL/);
  await new Promise((r) => setTimeout(r, 500)); // sockets closed a moment ago leave the list on the next turns
  // None more than before (one an earlier file left may end meanwhile).
  const added = [...handles()].filter(([kind, n]) => n > (before.get(kind) ?? 0));
  expect(added).toEqual([]);
});
