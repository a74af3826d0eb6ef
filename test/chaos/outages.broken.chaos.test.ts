import { privateRedis, testInfra } from '@platform/testing';

import { burstAcrossRedisRestart, startChaosStack } from './chaos-stack';

// The outage suite catches a broken promise: with the recovery rule held off (it waits an hour before it re-queues a
// run whose job is gone), the runs whose jobs a restarted Redis lost stay unended, which outages.chaos.test.ts's
// "every acknowledged run ends" reports.
it('Redis restarted (its data gone) with the recovery rule held off: acknowledged runs are left unended', async () => {
  const redis = await privateRedis();
  const s = await startChaosStack({
    mongoUri: testInfra.mongoUri,
    redisUrl: redis.url,
    llmDelayMs: 50,
    schedulerEnv: { RECOVER_QUEUED_AFTER_MS: '3600000', RECOVER_RUNNING_AFTER_MS: '3600000' },
  });
  try {
    const { sent, recoveredAt } = await burstAcrossRedisRestart(s, redis);
    // The bound the real suite gives every run to end (its RECOVERY_BOUND_MS): what is left then was lost.
    const end = await s.waitEnded(sent.accepted, recoveredAt + 120_000);
    process.stderr.write(
      `chaos redis-restart without recovery: accepted ${sent.accepted.length}, unended ${end.unended.length} 120 s after Redis came back\n`,
    );
    expect(end.unended.length).toBeGreaterThan(0);
  } finally {
    await s.close();
    await redis.stop();
  }
}, 240_000);
