import request from 'supertest';

import { createQueue, disconnectRedis, QUEUE_NAMES, workerConnection } from '@platform/queue';
import { executionModel } from '@platform/scheduling';
import { startLocalServer, testInfra } from '@platform/testing';

import { sleep, startChaosStack } from './chaos-stack';

const MINUTE = 60_000;

export interface CronReplicasResult {
  ids: string[];
  /** Schedules with an execution for the first and the second fire. */
  firedFirst: string[];
  firedSecond: string[];
  /** Fires with more than one execution. */
  duplicates: number;
  /** Calls to the endpoint beyond the succeeded runs. */
  extraHits: number;
}

/**
 * Cron with replicas, as a Deployment runs it: 2 scheduler and 3 worker processes on one database and one Redis,
 * `schedules` HTTP schedules firing every minute at a local endpoint. Each first fire is also queued a second time
 * by hand at its fire time (as a replica's catch-up that raced the job scheduler would), so two jobs stand for the
 * same fire. Mid-way one worker and one scheduler are killed with SIGKILL. `breakGuard` first drops the executions'
 * unique index on `fire_key` (one execution per fire): the guard that makes a fire handled twice run once. That is
 * the broken-on-purpose case. `redisUrl`: any form (one node, Cluster, Sentinel).
 */
export async function cronReplicas(
  schedules: number,
  breakGuard = false,
  redisUrl = testInfra.redisUrl,
  /** Another fault, made when the worker and the scheduler are killed (e.g. a Redis Cluster master killed). */
  alsoAtKill?: () => Promise<void>,
): Promise<CronReplicasResult> {
  const hits = new Map<string, number>();
  const target = await startLocalServer((req, res) => {
    const id = new URL(req.url, 'http://x').searchParams.get('s') ?? '?';
    hits.set(id, (hits.get(id) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const s = await startChaosStack({
    mongoUri: testInfra.mongoUri,
    redisUrl,
    schedulers: 2,
    workers: 3,
    workerEnv: { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}`, JOB_LOCK_MS: '5000', STALLED_INTERVAL_MS: '2000' },
    // The scheduler takes the worker's allow-list: an HTTP schedule naming a loopback address is refused at create.
    schedulerEnv: { RECONCILE_INTERVAL_MS: '5000', OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}` },
  });
  const connection = workerConnection(redisUrl);
  const fires = createQueue(QUEUE_NAMES.scheduleFires, connection, {}, s.prefix);
  try {
    const Execution = executionModel(s.db);
    if (breakGuard) {
      await Execution.init(); // this process's own index build first, or it would put them back
      await Execution.collection.dropIndex('fire_key_1');
    }
    const ids: string[] = [];
    for (let i = 0; i < schedules; i++) {
      const res = await request(s.schedulers[i % 2]!.url)
        .post('/http-schedules/')
        .set('x-api-key', s.key)
        .send({
          name: `tick ${i}`,
          url: `${target.url}/tick?s=${i}`,
          cron_expression: '* * * * *',
          overlap_policy: 'allow',
        });
      if (res.status !== 201) throw new Error(`schedule: ${res.status} ${res.text}`);
      ids.push(String(res.body.id));
    }
    const startedAt = Date.now();
    // The first full minute boundary after the schedules exist, and the one after it: both must fire.
    const firstFire = Math.ceil((startedAt + 5_000) / MINUTE) * MINUTE;
    const secondFire = firstFire + MINUTE;
    for (const id of ids) {
      await fires.add(
        'fire',
        { schedule_id: id, fire_at: firstFire },
        { jobId: `fire:${id}:${firstFire}`, delay: firstFire - Date.now() },
      );
    }
    await sleep(firstFire - Date.now() + 5_000);
    s.workers[0]!.child.kill('SIGKILL');
    s.schedulers[1]!.child.kill('SIGKILL');
    await alsoAtKill?.();
    await sleep(secondFire - Date.now() + 20_000);

    const runs = await Execution.find(
      { schedule_id: { $in: ids } },
      { schedule_id: 1, fire_key: 1, scheduled_for: 1, status: 1 },
    ).lean();
    const perFire = new Map<string, number>();
    for (const r of runs) perFire.set(r.fire_key, (perFire.get(r.fire_key) ?? 0) + 1);
    const fired = (at: number) =>
      ids.filter((id) => runs.some((r) => r.schedule_id === id && (r.scheduled_for as Date | null)?.getTime() === at));
    const result: CronReplicasResult = {
      ids,
      firedFirst: fired(firstFire),
      firedSecond: fired(secondFire),
      duplicates: [...perFire.values()].filter((n) => n > 1).length,
      extraHits:
        [...hits.values()].reduce((sum, n) => sum + n, 0) - runs.filter((r) => r.status === 'succeeded').length,
    };
    process.stderr.write(
      `chaos cron-replicas${breakGuard ? ' (unique indexes dropped)' : ''}: ${runs.length} executions of ${schedules} schedules, ` +
        `fires per minute ${result.firedFirst.length} and ${result.firedSecond.length}, executions per fire > 1: ${result.duplicates}, ` +
        `endpoint calls beyond the runs: ${result.extraHits}\n`,
    );
    return result;
  } finally {
    await fires.close();
    await disconnectRedis(connection);
    await s.close();
    await target.close();
  }
}
