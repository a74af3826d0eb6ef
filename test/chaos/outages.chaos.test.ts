import { privateFerretDb, privatePostgres, privateRedis, testInfra } from '@platform/testing';

import {
  burstAcrossRedisRestart,
  duplicateCalls,
  sleep,
  startChaosStack,
  type ChaosStack,
  type SendResult,
} from './chaos-stack';

// The platform's first promise under the faults an operator sees: no acknowledged trigger is lost, none runs
// twice. Real scheduler, agent service and worker processes; the store and Redis are this file's own, so taking them
// away disturbs no other test. Each scenario ends with every run that was answered 202 ended, within two minutes
// of recovery, and counts the runs that reached the provider stand-in.
const RECOVERY_BOUND_MS = 120_000;

/** What explains a run that went wrong: errors no rule classified, retried attempts, recoveries. */
function reportNotable(s: ChaosStack, name: string): void {
  const notable = [
    // Errors first, kept from the start of the run (a 500's cause is here even when later output is cut).
    ...s.errorLines().filter((l) => /"message":"unhandled error"|"status":500/.test(l)),
    ...s
      .logLines()
      .filter((l) =>
        /"message":"(run attempt failed; will retry|run job given up|run recovered under a new job|run abandoned)/.test(
          l,
        ),
      ),
  ];
  if (notable.length > 0)
    process.stderr.write(
      `chaos ${name}: notable log lines:\n${notable
        .slice(0, 20)
        .map((l) => l.slice(0, 600))
        .join('\n')}\n`,
    );
}

/** Asserts the end state and reports what reached the provider. */
async function expectAllEndedOnce(s: ChaosStack, sent: SendResult, recoveredAt: number, name: string) {
  expect(sent.accepted.length).toBeGreaterThan(0);
  const end = await s.waitEnded(sent.accepted, recoveredAt + RECOVERY_BOUND_MS);
  const statuses: Record<string, number> = {};
  for (const id of sent.accepted) {
    const st = end.byId.get(id)?.status ?? 'missing';
    statuses[st] = (statuses[st] ?? 0) + 1;
  }
  const reached = sent.acceptedNumbers.filter((n) => (s.calls.get(n) ?? 0) > 0).length;
  const duplicates = duplicateCalls(s.calls);
  const redelivered = sent.accepted.filter((id) => (end.byId.get(id)?.attempt ?? 0) > 1).length;
  process.stderr.write(
    `chaos ${name}: answers ${JSON.stringify(sent.statuses)}; accepted ${sent.accepted.length}, ended ${JSON.stringify(statuses)}, ` +
      `reached the provider ${reached}, provider calls beyond the first ${duplicates}, runs with attempt > 1: ${redelivered}; ` +
      `all ended ${Math.round((Date.now() - recoveredAt) / 1000)} s after recovery\n`,
  );
  reportNotable(s, name);
  expect(end.unended).toEqual([]);
  expect(statuses).toEqual({ succeeded: sent.accepted.length });
  expect(reached).toBe(sent.accepted.length);
  // No execution was created twice for one trigger: one record per accepted id.
  expect(new Set(sent.accepted).size).toBe(sent.accepted.length);
  return { duplicates, redelivered };
}

it('PostgreSQL (FerretDB’s store) stopped for 30 s mid-burst, FerretDB restarted meanwhile: 503 within 5 s, every acknowledged run ends, once', async () => {
  const pg = await privatePostgres();
  const ferret = await privateFerretDb({ postgresUrl: pg.url });
  const s = await startChaosStack({
    mongoUri: ferret.uri,
    redisUrl: testInfra.redisUrl,
    postgresUrl: pg.url,
    llmDelayMs: 50,
  });
  try {
    let stop = () => undefined as void;
    const sending = s.sendUntil(new Promise<void>((r) => (stop = r)));
    await sleep(3_000);
    await pg.stop();
    await sleep(8_000);
    await ferret.stop(); // FerretDB restarted while its store is away
    await ferret.start();
    await sleep(22_000);
    await pg.start();
    const recoveredAt = Date.now();
    await sleep(3_000);
    stop();
    const sent = await sending;
    // While the store was away the trigger refused (503), never accepted what it could not store, never 500.
    if (sent.statuses[500]) reportNotable(s, 'postgres-30s');
    expect(Object.keys(sent.statuses).sort()).toEqual(['202', '503']);
    // Refused fast: a sender learns within 5 s that it must retry (the database wait is bounded, never a hang).
    process.stderr.write(
      `chaos postgres-30s: slowest 503 ${sent.slowest[503]} ms, slowest 202 ${sent.slowest[202]} ms\n`,
    );
    expect(sent.slowest[503]).toBeLessThan(5_000);
    const { duplicates } = await expectAllEndedOnce(s, sent, recoveredAt, 'postgres-30s');
    expect(duplicates).toBe(0);
  } finally {
    await s.close();
    await ferret.dispose();
    await pg.dispose();
  }
}, 240_000);

it('Redis restarted (its data gone) mid-burst: runs accepted meanwhile and jobs it lost all end, once', async () => {
  const redis = await privateRedis();
  const s = await startChaosStack({ mongoUri: testInfra.mongoUri, redisUrl: redis.url, llmDelayMs: 50 });
  try {
    const { sent, recoveredAt } = await burstAcrossRedisRestart(s, redis);
    expect(Object.keys(sent.statuses)).toEqual(['202']); // the store was there: every trigger was acknowledged
    const { duplicates } = await expectAllEndedOnce(s, sent, recoveredAt, 'redis-restart');
    expect(duplicates).toBe(0);
  } finally {
    await s.close();
    await redis.stop();
  }
}, 240_000);

it('one of two workers killed with SIGKILL mid-burst: its runs are redelivered and every one ends once', async () => {
  // A short job lock, so that the dead worker's runs are redelivered within seconds rather than a minute.
  const s = await startChaosStack({
    mongoUri: testInfra.mongoUri,
    redisUrl: testInfra.redisUrl,
    workers: 2,
    llmDelayMs: 300,
    workerEnv: { JOB_LOCK_MS: '5000', STALLED_INTERVAL_MS: '2000', AGENT_RUN_CONCURRENCY: '8' },
  });
  try {
    let stop = () => undefined as void;
    const sending = s.sendUntil(new Promise<void>((r) => (stop = r)), 8);
    await sleep(3_000);
    const killed = s.workers[0]!;
    killed.child.kill('SIGKILL');
    const recoveredAt = Date.now();
    await sleep(3_000);
    stop();
    const sent = await sending;
    const { duplicates, redelivered } = await expectAllEndedOnce(s, sent, recoveredAt, 'worker-sigkill');
    // At least once: only the killed worker's runs in flight (at most its concurrency, 8) reach the model again,
    // and they show it in their attempt count.
    expect(duplicates).toBeLessThanOrEqual(8);
    expect(redelivered).toBeGreaterThanOrEqual(duplicates);
  } finally {
    await s.close();
  }
}, 240_000);
