import request from 'supertest';
import { executionModel } from '@platform/scheduling';
import { startLocalServer, testInfra } from '@platform/testing';
import { sleep, startChaosStack } from './chaos-stack';

// Cron with replicas, as a Deployment runs it: 2 scheduler and 3 worker processes on one database and one Redis,
// N HTTP schedules firing every minute at a local endpoint. Mid-way one worker and one scheduler are killed with
// SIGKILL. Every fire whose minute passed while the stack ran must have exactly one execution, and the endpoint may
// be called twice only for runs the killed worker had in flight (at least once), never because a fire ran twice.
const SCHEDULES = 30;
const MINUTE = 60_000;

it('2 schedulers and 3 workers, one of each killed: every fire runs once, none is missed', async () => {
  const hits = new Map<string, number>();
  const target = await startLocalServer((req, res) => {
    const id = new URL(req.url, 'http://x').searchParams.get('s') ?? '?';
    hits.set(id, (hits.get(id) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const s = await startChaosStack({
    mongoUri: testInfra.mongoUri,
    redisUrl: testInfra.redisUrl,
    schedulers: 2,
    workers: 3,
    workerEnv: { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}`, JOB_LOCK_MS: '5000', STALLED_INTERVAL_MS: '2000' },
    schedulerEnv: { RECONCILE_INTERVAL_MS: '5000' },
  });
  try {
    const ids: string[] = [];
    for (let i = 0; i < SCHEDULES; i++) {
      const res = await request(s.schedulers[i % 2]!.url)
        .post('/http-schedules/')
        .set('x-api-key', s.key)
        .send({ name: `tick ${i}`, url: `${target.url}/tick?s=${i}`, cron_expression: '* * * * *', overlap_policy: 'allow' });
      expect(res.status).toBe(201);
      ids.push(String(res.body.id));
    }
    const startedAt = Date.now();
    // The first full minute boundary after the schedules exist, and the one after it: both must fire.
    const firstFire = Math.ceil((startedAt + 1_000) / MINUTE) * MINUTE;
    await sleep(firstFire - Date.now() + 5_000);
    s.workers[0]!.child.kill('SIGKILL');
    s.schedulers[1]!.child.kill('SIGKILL');
    const secondFire = firstFire + MINUTE;
    await sleep(secondFire - Date.now() + 20_000);

    const Execution = executionModel(s.db);
    const runs = await Execution.find({ schedule_id: { $in: ids } }, { schedule_id: 1, fire_key: 1, scheduled_for: 1, status: 1 }).lean();
    const perFire = new Map<string, number>();
    for (const r of runs) perFire.set(r.fire_key, (perFire.get(r.fire_key) ?? 0) + 1);
    const duplicates = [...perFire.values()].filter((n) => n > 1).length;
    const fired = (at: number) => ids.filter((id) => runs.some((r) => r.schedule_id === id && (r.scheduled_for as Date | null)?.getTime() === at));
    const extraHits = [...hits.values()].reduce((sum, n) => sum + n, 0) - runs.filter((r) => r.status === 'succeeded').length;
    process.stderr.write(
      `chaos cron-replicas: ${runs.length} executions of ${SCHEDULES} schedules, fires per minute ${fired(firstFire).length} and ${fired(secondFire).length}, ` +
        `executions per fire > 1: ${duplicates}, endpoint calls beyond the runs: ${extraHits}\n`,
    );
    expect(duplicates).toBe(0);
    expect(fired(firstFire)).toEqual(ids);
    expect(fired(secondFire)).toEqual(ids);
    // At least once: a call the killed worker made before dying may be made again, at most its concurrency.
    expect(extraHits).toBeLessThanOrEqual(8);
  } finally {
    await s.close();
    await target.close();
  }
}, 240_000);
