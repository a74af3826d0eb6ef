/**
 * The floor: the durable work of a trigger done with the database driver and BullMQ alone, no HTTP and none of our
 * code on the path. For each of N items, `concurrency` producers insert a document like an execution (one
 * `insertOne`) and enqueue a job carrying its id (one `Queue.add`); meanwhile a BullMQ worker of the worker's run
 * concurrency takes each job, claims its document with one conditional `updateOne` (queued → running) and finishes
 * it with another (running → succeeded). Reported: intake (insert + enqueue per second, p50/p99 of the pair while
 * the consumer runs, as the trigger bench measures ours) and completed items per second end to end.
 *
 * The cron floor (floor-cron.ts) follows it: what fires that come due together could cost at best.
 *
 * Both go to fresh collections of the same database, created with the executions' indexes (and, on FerretDB with
 * FERRETDB_POSTGRESQL_URL, the lookup indexes the services add) before any load: FerretDB stalls on a collection
 * created under concurrent writes. The queues live under a prefix of their own, removed afterwards.
 *
 * `runFloor` is used by trigger.bench.ts; run alone, this file makes its own database and drops it.
 */
import { connectMongo, mongoose, type Connection } from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';
import { cronFloor, cronFloorLine, type CronFloor } from './floor-cron';
import { claimAndFinish, freshCollection, queuedDoc, queueKit } from './floor-kit';

export interface FloorOptions {
  /** Items of the run floor (the trigger bench's BENCH_TRIGGERS). */
  total: number;
  /** Producers inserting and enqueueing at once (the trigger bench's BENCH_CONCURRENCY). */
  concurrency: number;
  /** Jobs the BullMQ worker runs at once (the worker's AGENT_RUN_CONCURRENCY default). */
  workerConcurrency: number;
  /** Sizes of the cron floor; empty skips it. */
  cronSizes: number[];
  /** The payload stored with item i. */
  payload: (i: number) => object;
}

export interface FloorResult {
  /** Inserts + enqueues per second at `concurrency`, with the consumer running. */
  intake: number;
  p50: number;
  p99: number;
  /** Items finished per second, from the first insert to the last finish. */
  completed: number;
  completedSeconds: number;
  /** Per cron size: items per second inserted and enqueued in batches, and their start lags (ms) once due. */
  cron: CronFloor[];
}

const envNumber = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** The trigger bench's BENCH_TRIGGERS and BENCH_CONCURRENCY; BENCH_FLOOR_WORKER_CONCURRENCY (64); BENCH_FLOOR_CRON sizes ("0" skips). */
export function floorOptionsFromEnv(): FloorOptions {
  const cron = (process.env.BENCH_FLOOR_CRON ?? '1000 10000')
    .split(/[\s,]+/)
    .map(Number)
    .filter((n) => n > 0);
  return {
    total: envNumber('BENCH_TRIGGERS', 2_000),
    concurrency: envNumber('BENCH_CONCURRENCY', 32),
    workerConcurrency: envNumber('BENCH_FLOOR_WORKER_CONCURRENCY', 64),
    cronSizes: cron,
    payload: (i) => ({ event: 'order.created', order: i, note: 'x'.repeat(850) }), // ~900 bytes, like the triggers'
  };
}

/** The run floor: insert + enqueue by `concurrency` producers while a worker claims and finishes each item. */
async function runItems(conn: Connection, redisUrl: string, o: FloorOptions): Promise<Omit<FloorResult, 'cron'>> {
  const name = uniqueName('bench_floor_runs');
  const coll = await freshCollection(conn, name);
  // The consumer's own connection pool, as the worker process has one of its own beside the scheduler's.
  const consumerConn = await connectMongo({ uri: testInfra.mongoUri, dbName: conn.name });
  const runs = consumerConn.collection(name);
  const kit = queueKit(redisUrl);
  try {
    const queue = kit.queue('floor-runs');
    await queue.waitUntilReady();
    let finished = 0;
    let failure: Error | undefined;
    let allDone!: () => void;
    const done = new Promise<void>((r) => (allDone = r));
    const worker = kit.worker('floor-runs', o.workerConcurrency, async (id) => {
      await claimAndFinish(runs, id, `Handled ${id}: the customer was notified and the stock was updated.`);
      if (++finished === o.total) allDone();
    });
    worker.on('failed', (_job, err) => {
      failure ??= err;
      allDone();
    });
    await worker.waitUntilReady();

    const webhook = new mongoose.Types.ObjectId().toHexString();
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        for (let i = next++; i < o.total; i = next++) {
          const t = performance.now();
          const doc = queuedDoc(webhook, i, o.payload(i));
          await coll.insertOne(doc);
          const id = doc._id.toHexString();
          await queue.add('run', { id }, { jobId: id });
          latencies.push(performance.now() - t);
        }
      }),
    );
    const intakeSeconds = (performance.now() - started) / 1000;
    const timeout = setTimeout(() => {
      failure ??= new Error(`floor: ${finished} of ${o.total} finished after 600 s`);
      allDone();
    }, 600_000);
    await done;
    clearTimeout(timeout);
    const completedSeconds = (performance.now() - started) / 1000;
    if (failure) throw failure;
    await coll.drop().catch(() => undefined);
    return {
      intake: o.total / intakeSeconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      completed: o.total / completedSeconds,
      completedSeconds,
    };
  } finally {
    await kit.close();
    await consumerConn.close();
  }
}

/** Runs the run floor, then the cron floor, against `conn`'s database and the Redis at `redisUrl`. */
export async function runFloor(conn: Connection, redisUrl: string, o: FloorOptions): Promise<FloorResult> {
  const items = await runItems(conn, redisUrl, o);
  const cron = await cronFloor(conn, redisUrl, o.cronSizes, o.workerConcurrency);
  return { ...items, cron };
}

/** The floor's lines, as both this file and the trigger bench print them. */
export function floorLines(r: FloorResult, o: Pick<FloorOptions, 'concurrency' | 'workerConcurrency'>): string[] {
  const f = (n: number, d = 1) => n.toFixed(d);
  const lines = [
    `floor (driver + BullMQ): intake ${f(r.intake, 0)}/s p50 ${f(r.p50)} ms p99 ${f(r.p99)} ms, completed ${f(r.completed, 0)}/s (insertOne + add at concurrency ${o.concurrency}; worker concurrency ${o.workerConcurrency}, updateOne claim + updateOne finish)`,
  ];
  if (r.cron.length > 0) {
    lines.push(...r.cron.map(cronFloorLine));
  }
  return lines;
}

async function main(): Promise<void> {
  const o = floorOptionsFromEnv();
  const conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('bench_floor') });
  try {
    out(
      `bench/trigger floor: ${o.total} items, concurrency ${o.concurrency}, worker concurrency ${o.workerConcurrency}; ${machineLoad()}`,
    );
    const r = await runFloor(conn, testInfra.redisUrl, o);
    for (const line of floorLines(r, o)) out(line);
    out(`  all ${o.total} finished in ${r.completedSeconds.toFixed(1)} s`);
  } finally {
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
  }
}

if (require.main === module) runBench('trigger/floor', main);
