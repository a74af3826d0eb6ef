/**
 * The cron floor: what fires that come due together could cost at best, 1,000 and 10,000 items inserted with
 * `insertMany` batches of 64 and enqueued with `Queue.addBulk`, four batches at a time (the repository's insert
 * batch and parallelism), each then taken, claimed (its start), called (its HTTP target) and finished by a worker of
 * the run concurrency (floor.ts runs it after the run floor; the cron benchmark runs it alone).
 */
import { Agent } from 'node:http';

import { connectMongo, mongoose, type Connection } from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

import { machineBusyMs, percentile } from '../kit/bench-kit';
import { send, targetProcess } from '../kit/http-json';
import { cpuGroups, spent, storeRules } from '../kit/proc-cpu';
import { claimAndFinish, freshCollection, queuedDoc, queueKit } from './floor-kit';

/** The figures of one size of the cron floor (`FloorResult.cron`). */
export interface CronFloor {
  n: number;
  seconds: number;
  rate: number;
  startP50: number;
  startP99: number;
  cpuMsPerItem: number;
  /** CPU ms per item of the floor's own Node process (`node`) and of each store. */
  byProcess: Map<string, number>;
  /** Each item's start lag (ms). */
  lags: number[];
}

const INSERT_BATCH = 64;
const INSERT_PARALLEL = 4;

/**
 * The cron floor: `n` items come due at once; they are inserted in batches of 64 and enqueued with addBulk, four
 * batches at a time, while a worker of the run concurrency takes each, claims it (`updateOne` queued → running: its
 * start), makes its HTTP call (a GET over a keep-alive agent to a target in a process of its own, as an HTTP
 * schedule's run calls its URL) and finishes it (`updateOne`). Reported: the store rate, each item's start lag from
 * the instant they came due (the figure the cron benchmark measures for ours), and the CPU per item.
 */
export async function cronFloor(
  conn: Connection,
  redisUrl: string,
  sizes: number[],
  workerConcurrency = 64,
): Promise<CronFloor[]> {
  if (sizes.length === 0) return [];
  const coll = await freshCollection(conn, uniqueName('bench_floor_cron'));
  const consumerConn = await connectMongo({ uri: testInfra.mongoUri, dbName: conn.name });
  const runs = consumerConn.collection(coll.collectionName);
  const kit = queueKit(redisUrl);
  const target = await targetProcess();
  const http = new Agent({ keepAlive: true, maxSockets: workerConcurrency });
  const results: CronFloor[] = [];
  const stores = cpuGroups(
    storeRules(Number(new URL(testInfra.mongoUri).port || 27017), Number(new URL(redisUrl).port || 6379)),
  );
  try {
    const queue = kit.queue('floor-fires');
    await queue.waitUntilReady();
    let round: { lags: number[]; due: number; want: number; done: () => void; failure?: Error } | null = null;
    const worker = kit.worker('floor-fires', workerConcurrency, async (id) => {
      const r = round!;
      await claimAndFinish(
        runs,
        id,
        'ok',
        () => r.lags.push(performance.now() - r.due),
        () => send(http, new URL(`?s=${id}`, target.url), 'GET'),
      );
      if (r.lags.length === r.want) r.done();
    });
    worker.on('failed', (_job, err) => {
      if (!round) return;
      round.failure ??= err;
      round.done();
    });
    await worker.waitUntilReady();
    for (const n of sizes) {
      const schedule = new mongoose.Types.ObjectId().toHexString();
      const fireAt = new Date();
      let next = 0;
      const cpuBefore = machineBusyMs();
      const nodeBefore = process.cpuUsage();
      const storesBefore = stores.read();
      const finished = new Promise<void>((done) => (round = { lags: [], due: performance.now(), want: n, done }));
      const started = round!.due;
      await Promise.all(
        Array.from({ length: INSERT_PARALLEL }, async () => {
          for (let b = next; b < n; b = next) {
            next += INSERT_BATCH;
            const docs = Array.from({ length: Math.min(INSERT_BATCH, n - b) }, (_, k) => {
              const doc = queuedDoc(schedule, b + k, {});
              return {
                ...doc,
                kind: 'http_schedule',
                webhook_id: null,
                schedule_id: `${schedule}-${b + k}`,
                scheduled_for: fireAt,
                fire_key: `${schedule}-${b + k}:${fireAt.getTime()}`,
              };
            });
            await coll.insertMany(docs, { ordered: false });
            await queue.addBulk(
              docs.map((d) => ({
                name: 'fire',
                data: { id: d._id.toHexString() },
                opts: { jobId: d._id.toHexString() },
              })),
            );
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const timeout = setTimeout(() => {
        round!.failure ??= new Error(`floor cron: ${round!.lags.length} of ${n} started after 600 s`);
        round!.done();
      }, 600_000);
      await finished;
      clearTimeout(timeout);
      if (round!.failure) throw round!.failure;
      const lags = round!.lags;
      results.push({
        n,
        seconds,
        rate: n / seconds,
        startP50: percentile(lags, 50),
        startP99: percentile(lags, 99),
        lags,
        cpuMsPerItem: (machineBusyMs() - cpuBefore) / n,
        byProcess: new Map([
          ['node', (({ user, system }) => (user + system) / 1000 / n)(process.cpuUsage(nodeBefore))],
          ...[...spent(storesBefore, stores.read())].map(([k, ms]) => [k, ms / n] as [string, number]),
        ]),
      });
    }
    await coll.drop().catch(() => undefined);
    return results;
  } finally {
    await kit.close();
    await consumerConn.close();
    http.destroy();
    target.stop();
  }
}

/**
 * Rounds of the cron floor as one (the cron benchmark's window has several fire minutes): items, time and CPU summed,
 * start lags pooled, so that its p99 is taken over as many items as ours.
 */
export function pooledCronFloor(rounds: CronFloor[]): CronFloor {
  const n = rounds.reduce((a, r) => a + r.n, 0);
  const seconds = rounds.reduce((a, r) => a + r.seconds, 0);
  const lags = rounds.flatMap((r) => r.lags);
  const byProcess = new Map<string, number>();
  for (const r of rounds) for (const [k, ms] of r.byProcess) byProcess.set(k, (byProcess.get(k) ?? 0) + (ms * r.n) / n);
  return {
    n,
    seconds,
    rate: n / seconds,
    startP50: percentile(lags, 50),
    startP99: percentile(lags, 99),
    lags,
    cpuMsPerItem: rounds.reduce((a, r) => a + r.cpuMsPerItem * r.n, 0) / n,
    byProcess,
  };
}

/** One size of the cron floor, as the trigger and cron benchmarks print it. */
export function cronFloorLine(c: CronFloor): string {
  const f = (n: number, d = 1) => n.toFixed(d);
  const procs = [...c.byProcess].map(([k, ms]) => `${k} ${f(ms, 2)}`).join(', ');
  return `floor cron (insertMany ${INSERT_BATCH} + addBulk, ${INSERT_PARALLEL} at once; claim, HTTP call, finish): ${c.n.toLocaleString('en')} due at once stored in ${f(c.seconds, 2)} s (${f(c.rate, 0)} items/s), start lag p50 ${f(c.startP50, 0)} ms, p99 ${f(c.startP99, 0)} ms; machine CPU ${f(c.cpuMsPerItem)} ms per item (${procs})`;
}
