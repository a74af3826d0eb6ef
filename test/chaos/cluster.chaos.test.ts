import { startRedisCluster, testInfra, type LocalRedisCluster } from '@platform/testing';

import { startChaosStack } from './chaos-stack';
import { cronReplicas } from './cron-replicas';
import { expectAllEndedOnce } from './end-state';

// The trigger and cron paths on a Redis Cluster (3 masters, each with a replica: local `redis-server
// --cluster-enabled` processes), every process's Redis (queues with hash-tagged prefixes, concurrency gate, change
// bus, rate limits) given as `redis+cluster://`. A master is killed with SIGKILL mid-burst: its replica takes over
// within the cluster's node timeout; no acknowledged trigger is lost, none runs twice, every fire runs once.

let cluster: LocalRedisCluster;

beforeEach(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000 });
}, 60_000);

afterEach(async () => {
  await cluster.stop();
});

it('a master killed mid-burst of signed triggers: every acknowledged run ends, once', async () => {
  const s = await startChaosStack({
    mongoUri: testInfra.mongoUri,
    redisUrl: cluster.url,
    workers: 2,
    schedulers: 2,
    llmDelayMs: 50,
    workerEnv: { JOB_LOCK_MS: '5000', STALLED_INTERVAL_MS: '2000' },
  });
  try {
    let stop = () => undefined as void;
    const sending = s.sendUntil(new Promise<void>((r) => (stop = r)), 16);
    await new Promise((r) => setTimeout(r, 3_000));
    const killed = await cluster.killMaster();
    const recoveredAt = Date.now();
    expect(await cluster.masters()).not.toContain(killed);
    await new Promise((r) => setTimeout(r, 3_000));
    stop();
    const sent = await sending;
    // The trigger stores the run before it queues it: a queue without its master leaves the run to the sweeper,
    // the sender is answered 202 all the same (503 only if the store itself could not take it).
    expect(Object.keys(sent.statuses).filter((k) => k !== '202' && k !== '503')).toEqual([]);
    const { duplicates } = await expectAllEndedOnce(s, sent, recoveredAt, 'cluster-master-killed');
    expect(duplicates).toBe(0);
  } finally {
    await s.close();
  }
}, 240_000);

it('cron on the cluster, a master killed with a worker and a scheduler: every fire runs once, none is missed', async () => {
  let killed = 0;
  const r = await cronReplicas(20, false, cluster.url, async () => {
    killed = await cluster.killMaster();
  });
  expect(killed).toBeGreaterThan(0);
  expect(await cluster.masters()).not.toContain(killed);
  expect(r.duplicates).toBe(0);
  expect(r.firedFirst).toEqual(r.ids);
  expect(r.firedSecond).toEqual(r.ids);
  expect(r.extraHits).toBeLessThanOrEqual(8);
}, 240_000);
