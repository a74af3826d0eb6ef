import { privatePostgres, privateRedis, privateStore, testInfra } from '@platform/testing';

import { burstAcrossRedisRestart, sleep, startChaosStack } from './chaos-stack';
import { expectAllEndedOnce, reportNotable } from './end-state';

// The platform's first promise under the faults an operator sees: no acknowledged trigger is lost, none runs
// twice. Real scheduler, agent service and worker processes; the store and Redis are this file's own, so taking them
// away disturbs no other test. Each scenario ends with every run that was answered 202 ended, within two minutes
// of recovery, and counts the runs that reached the provider stand-in.

it('PostgreSQL (FerretDB’s store) stopped for 30 s mid-burst, FerretDB restarted meanwhile: 503 within 5 s, every acknowledged run ends, once', async () => {
  const pg = await privatePostgres();
  const ferret = await privateStore({ postgresUrl: pg.url });
  const s = await startChaosStack({
    mongoUri: ferret.uri,
    redisUrl: testInfra.redisUrl,
    postgresUrl: ferret.postgresUrl,
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

/** Triggers accepted at most in the SIGKILL scenario: 1,500 × 0.3 s / 8 ≈ 56 s of the surviving worker's work. */
const SIGKILL_BURST_MAX = 1_500;

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
    // The survivor alone ends at most 8 / 0.3 s ≈ 27 runs a second: the burst is capped so that its backlog ends well
    // within the recovery bound whatever the intake rate (a fast machine once took 3,529 in 6 s, 130 s of the
    // survivor's work). The kill still lands with runs in flight and a backlog queued.
    const sending = s.sendUntil(new Promise<void>((r) => (stop = r)), 8, SIGKILL_BURST_MAX);
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
