/**
 * The floor: the durable work of a trigger done with the database driver and BullMQ alone, no HTTP and none of our
 * code on the path. For each of N items, `concurrency` producers insert a document like an execution (one
 * `insertOne`) and enqueue a job carrying its id (one `Queue.add`); meanwhile a BullMQ worker of the worker's run
 * concurrency takes each job, claims its document with one conditional `updateOne` (queued → running) and finishes
 * it with another (running → succeeded). Reported: intake (insert + enqueue per second, p50/p99 of the pair while
 * the consumer runs, as the trigger bench measures ours) and completed items per second end to end.
 *
 * The cron floor: what fires that come due together could cost at best, 1,000 and 10,000 items inserted with
 * `insertMany` batches of 64 and enqueued with `Queue.addBulk`, four batches at a time (the repository's insert
 * batch and parallelism), each then taken, claimed (its start), called (its HTTP target) and finished by a worker of
 * the run concurrency.
 *
 * Both go to fresh collections of the same database, created with the executions' indexes (and, on FerretDB with
 * FERRETDB_POSTGRESQL_URL, the lookup indexes the services add) before any load: FerretDB stalls on a collection
 * created under concurrent writes. The queues live under a prefix of their own, removed afterwards.
 *
 * `runFloor` is used by trigger.bench.ts; run alone, this file makes its own database and drops it.
 */
import { Agent } from 'node:http';

import { connectMongo, mongoose, prepareLookups, type Connection } from '@platform/db';
import { defaultJobOptions, IORedis, Queue, Worker } from '@platform/queue';
import { executionModel } from '@platform/scheduling';
import { testInfra, uniqueName } from '@platform/testing';

import { machineBusyMs, machineLoad, out, percentile, runBench } from '../kit/bench-kit';
import { executionDoc } from '../kit/executions';
import { send, targetProcess } from '../kit/http-json';
import { cpuGroups, spent, storeRules } from '../kit/proc-cpu';
import { deletePrefix } from '../kit/redis-prefix';

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
  cron: {
    n: number;
    seconds: number;
    rate: number;
    startP50: number;
    startP99: number;
    cpuMsPerItem: number;
    /** CPU ms per item of the floor's own Node process (`node`) and of each store. */
    byProcess: Map<string, number>;
  }[];
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

const INSERT_BATCH = 64;
const INSERT_PARALLEL = 4;

/**
 * A fresh collection `name` with the executions' indexes, ready before any load. The index specs are read from
 * the execution schema through a handle that neither creates collections nor builds indexes.
 */
export async function freshCollection(conn: Connection, name: string) {
  const shadow = conn.useDb(conn.name, { useCache: false });
  shadow.set('autoIndex', false);
  shadow.set('autoCreate', false);
  const schema = executionModel(shadow).schema;
  await conn.createCollection(name);
  const coll = conn.collection(name);
  await coll.createIndexes(
    schema.indexes().map(([key, options]) => ({ ...(options as object), key: key as Record<string, 1 | -1> })),
  );
  await prepareLookups(
    conn,
    name,
    schema.indexes().map(([key]) => Object.keys(key)[0]!),
  );
  return coll;
}

/** A queue and a worker connection under a prefix of their own; `close` removes every key of the prefix. */
function queueKit(url: string) {
  const prefix = uniqueName('benchfloor');
  const producer = new IORedis(url, { maxRetriesPerRequest: null });
  const consumer = new IORedis(url, { maxRetriesPerRequest: null });
  const queues: Queue[] = [];
  const workers: Worker[] = [];
  return {
    queue(name: string): Queue {
      const q = new Queue(name, { connection: producer, prefix, defaultJobOptions: { ...defaultJobOptions } });
      queues.push(q);
      return q;
    },
    worker(name: string, concurrency: number, process: (id: string) => Promise<void>): Worker {
      const w: Worker = new Worker(name, (job) => process((job.data as { id: string }).id), {
        connection: consumer,
        prefix,
        concurrency,
        removeOnComplete: defaultJobOptions.removeOnComplete as { count: number },
        removeOnFail: defaultJobOptions.removeOnFail as { count: number },
      });
      workers.push(w);
      return w;
    },
    async close() {
      for (const w of workers) await w.close().catch(() => undefined);
      for (const q of queues) await q.obliterate({ force: true }).catch(() => undefined);
      for (const q of queues) await q.close().catch(() => undefined);
      await deletePrefix(producer, prefix);
      producer.disconnect();
      consumer.disconnect();
    },
  };
}

/** A new queued execution of item `i`, as a trigger stores it (the ended fields reset). */
export function queuedDoc(webhookId: string, i: number, payload: object) {
  return {
    ...executionDoc(webhookId, { user_id: 'floor', org_id: 'floor' }, i, new Date()),
    status: 'queued',
    success: null,
    attempt: 0,
    started_at: null,
    finished_at: null,
    duration_ms: null,
    response_status: null,
    response_output: null,
    error_message: null,
    payload,
  };
}

/**
 * A run as the floor does it: one conditional `updateOne` claims it (queued → running; `started` is told then), one
 * finishes it (running → succeeded); either matching nothing fails the job.
 */
async function claimAndFinish(
  runs: ReturnType<Connection['collection']>,
  id: string,
  output: string,
  started?: () => void,
  call?: () => Promise<unknown>,
): Promise<void> {
  const _id = new mongoose.Types.ObjectId(id);
  const claim = await runs.updateOne(
    { _id, status: 'queued' },
    { $set: { status: 'running', started_at: new Date() }, $inc: { attempt: 1 } },
  );
  if (claim.modifiedCount !== 1) throw new Error(`floor: claim of ${id} matched ${claim.matchedCount}`);
  started?.();
  await call?.();
  const finish = await runs.updateOne(
    { _id, status: 'running' },
    { $set: { status: 'succeeded', finished_at: new Date(), response_output: output } },
  );
  if (finish.modifiedCount !== 1) throw new Error(`floor: finish of ${id} matched ${finish.matchedCount}`);
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
): Promise<FloorResult['cron']> {
  if (sizes.length === 0) return [];
  const coll = await freshCollection(conn, uniqueName('bench_floor_cron'));
  const consumerConn = await connectMongo({ uri: testInfra.mongoUri, dbName: conn.name });
  const runs = consumerConn.collection(coll.collectionName);
  const kit = queueKit(redisUrl);
  const target = await targetProcess();
  const http = new Agent({ keepAlive: true, maxSockets: workerConcurrency });
  const results: FloorResult['cron'] = [];
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

/** Runs the run floor, then the cron floor, against `conn`'s database and the Redis at `redisUrl`. */
export async function runFloor(conn: Connection, redisUrl: string, o: FloorOptions): Promise<FloorResult> {
  const items = await runItems(conn, redisUrl, o);
  const cron = await cronFloor(conn, redisUrl, o.cronSizes, o.workerConcurrency);
  return { ...items, cron };
}

/** One size of the cron floor, as the trigger and cron benchmarks print it. */
export function cronFloorLine(c: FloorResult['cron'][number]): string {
  const f = (n: number, d = 1) => n.toFixed(d);
  const procs = [...c.byProcess].map(([k, ms]) => `${k} ${f(ms, 2)}`).join(', ');
  return `floor cron (insertMany ${INSERT_BATCH} + addBulk, ${INSERT_PARALLEL} at once; claim, HTTP call, finish): ${c.n.toLocaleString('en')} due at once stored in ${f(c.seconds, 2)} s (${f(c.rate, 0)} items/s), start lag p50 ${f(c.startP50, 0)} ms, p99 ${f(c.startP99, 0)} ms; machine CPU ${f(c.cpuMsPerItem)} ms per item (${procs})`;
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
