/**
 * Signed webhook triggers at fixed concurrency against the real scheduler process, with the worker and the agent
 * service running and the LLM replaced by a local instant OpenAI-protocol server. Reports accepted triggers/s, p50
 * and p99 of the 202 and completed runs/s, each beside the stack's ceilings measured in the same run: a minimal
 * Express route (same client, bodies and concurrency) and raw inserts of the same documents into the same database at
 * the same concurrency, once into a collection without indexes and once into the executions collection with its
 * indexes; and the floor (floor.ts): the same durable work, insert + enqueue, take, claim, finish, with the driver and
 * BullMQ alone at the same concurrency, beside which intake and completed runs are also given as ratios.
 * BENCH_PRESEED_EXECUTIONS (default 100,000) stores that many executions first: intake on a store in use.
 * BENCH_WARMUP (default 1,500) triggers go unmeasured through the stack and through each floor first, so that every
 * side is measured with its code compiled and its connections open, as a platform in use runs: our processes' CPU
 * per trigger still fell by a third between the 300th and the 2,000th trigger (the tracing benchmark's rounds).
 */
import { resolve } from 'node:path';

import { mongoose } from '@platform/db';
import {
  createTestDatabases,
  startFakeLlm,
  startServiceProcess,
  testInfra,
  uniqueName,
  type FakeLlm,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { out, recordPass, runBench } from '../kit/bench-kit';
import { executionDoc, preseedExecutions } from '../kit/executions';
import { cpuGroups, cpuLines, spent, storeRules } from '../kit/proc-cpu';
import { floorLines, floorOptionsFromEnv, runFloor } from './floor';
import { runProcessFloor, type ProcessFloor } from './floor-procs';
import {
  bodyOf,
  createWebhook,
  load as loadAt,
  newStackKeys,
  signed,
  startStack,
  waitForRuns,
  type Load,
  type Stack,
} from './stack';
import { TRACING_OFF } from './tracing-env';

const TOTAL = Number(process.env.BENCH_TRIGGERS ?? 2_000);
const PRESEED = Number(process.env.BENCH_PRESEED_EXECUTIONS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1_500);

/** `count` (`TOTAL`) POSTs by `CONCURRENCY` loops over keep-alive connections (stack.ts); each built by `make(i)`. */
const load = (url: string, make: (i: number) => { body: string; headers: Record<string, string> }, count = TOTAL) =>
  loadAt(url, count, CONCURRENCY, make);

/** Raw driver inserts of `TOTAL` documents like the execution a trigger stores, by `CONCURRENCY` loops. */
async function rawInserts(
  coll: { insertOne(doc: object): Promise<unknown> },
  doc: (i: number) => object,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < TOTAL; i = next++) await coll.insertOne(doc(i));
    }),
  );
  return TOTAL / ((performance.now() - started) / 1000);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
function summary(l: Load) {
  const s = [...l.latencies].sort((a, b) => a - b);
  return { rps: TOTAL / l.seconds, p50: pct(s, 50), p99: pct(s, 99) };
}

const f = (n: number, d = 1) => n.toFixed(d);

/** The stack, the minimal Express route beside it, and a webhook of the stack's. */
async function startBenchStack(dbs: TestDatabases, llm: FakeLlm, prefix: string, procs: ServiceProcess[]) {
  // The services as `pnpm start` runs them (stack.ts): logs at info, tracing off (the OTEL_* variables unset, even
  // when this shell sets them; tracing.ts measures it on).
  const stack = await startStack(
    {
      mongoUri: testInfra.mongoUri,
      redisUrl: testInfra.redisUrl,
      authDb: dbs.authDb,
      dbName: dbs.conn.name,
      prefix,
      llmPort: llm.port,
      keys: newStackKeys(),
      env: TRACING_OFF,
    },
    (p) => procs.push(p),
  );
  const baseline = await startServiceProcess({ script: resolve(__dirname, 'baseline-server.js') });
  procs.push(baseline);

  const key = await dbs.mintKey({ user_id: 'bench', org_id: 'bench' });
  const hook = await createWebhook(stack, key, llm.baseUrl);
  // The warm-up's own webhook: the measured one's rate limit (per webhook and minute) is left whole for the run.
  const warmHook = await createWebhook(stack, key, llm.baseUrl);
  return { stack, baseline, hook, warmHook };
}

/** Stores `PRESEED` executions over a connection without a socket timeout, handed to `opened` first. */
async function preseed(dbs: TestDatabases, opened: (seeding: mongoose.Connection) => void): Promise<void> {
  const t = performance.now();
  const seeding = await mongoose
    .createConnection(testInfra.mongoUri, { dbName: dbs.conn.name, socketTimeoutMS: 0 })
    .asPromise();
  opened(seeding);
  // Counted from the inserts' answers: a count of the whole collection takes FerretDB longer than a socket timeout.
  const stored = await preseedExecutions(seeding.collection('executions'), PRESEED);
  if (stored < PRESEED) throw new Error(`preseed stored ${stored} of ${PRESEED} executions`);
  out(`preseeded ${PRESEED.toLocaleString('en')} executions in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}

/** The stack's ceilings, measured before the triggers: raw inserts, raw execution inserts and the floor. */
async function measureCeilings(dbs: TestDatabases, hookId: string) {
  const raw = await rawInserts(dbs.conn.collection('bench_raw_inserts'), (i) => ({
    webhook_id: hookId,
    user_id: 'bench',
    org_id: 'bench',
    status: 'queued',
    payload_json: bodyOf(i),
    created_at: new Date(),
  }));
  await dbs.conn
    .collection('bench_raw_inserts')
    .drop()
    .catch(() => undefined);
  // The same single inserts into the executions collection itself, with its indexes (and, on FerretDB, their
  // lookup indexes): the ceiling of one stored execution per trigger. Removed again before the triggers.
  const rawWebhook = 'e'.repeat(24);
  const executionsColl = dbs.conn.collection('executions');
  const rawIndexed = await rawInserts(executionsColl, (i) => ({
    ...executionDoc(rawWebhook, { user_id: 'raw', org_id: 'raw' }, i, new Date()),
    payload: JSON.parse(bodyOf(i)) as object,
  }));
  await executionsColl.deleteMany({ webhook_id: rawWebhook });
  // The floor: the same durable work with the driver and BullMQ alone (floor.ts), in fresh collections of this
  // database, at the same concurrency, with the same bodies.
  const floorOptions = {
    ...floorOptionsFromEnv(),
    total: TOTAL,
    concurrency: CONCURRENCY,
    payload: (i: number) => JSON.parse(bodyOf(i)) as object,
  };
  if (WARMUP > 0) await runFloor(dbs.conn, testInfra.redisUrl, { ...floorOptions, total: WARMUP, cronSizes: [] });
  const floor = await runFloor(dbs.conn, testInfra.redisUrl, floorOptions);
  return { raw, rawIndexed, floorOptions, floor };
}

/** `WARMUP` signed triggers to a webhook of their own through the stack, their runs awaited. */
async function warmUp(stack: Stack, hook: { id: string; secret: Buffer }): Promise<void> {
  const make = signed(hook.secret);
  const warm = await load(`${stack.scheduler.url}/webhook-trigger/${hook.id}`, make, WARMUP);
  const accepted = warm.statuses.get(202) ?? 0;
  if (accepted !== WARMUP) throw new Error(`warm-up: ${accepted} of ${WARMUP} triggers accepted`);
  const ended = await waitForRuns(stack.worker.url, WARMUP);
  if (ended < WARMUP) throw new Error(`warm-up: ${ended} of ${WARMUP} runs ended`);
}

/** The triggers: the minimal route first, then the signed triggers, with each process's CPU read from the first. */
async function sendTriggers(stack: Stack, hook: { id: string; secret: Buffer }, baseline: ServiceProcess) {
  const { agent, scheduler, worker } = stack;
  out(
    `bench/trigger: ${TOTAL} requests, concurrency ${CONCURRENCY}, 1 scheduler + 1 worker (AGENT_RUN_CONCURRENCY 64, the default) + agent service, instant local LLM`,
  );
  const base = summary(await load(`${baseline.url}/x`, (i) => ({ body: bodyOf(i), headers: {} })));

  // CPU of each process from the first trigger until the last run ended (the measured phase only).
  const stores = storeRules(
    Number(new URL(testInfra.mongoUri).port || 27017),
    Number(new URL(testInfra.redisUrl).port || 6379),
  );
  const cpu = cpuGroups({
    scheduler: { pids: [scheduler.child.pid!] },
    worker: { pids: [worker.child.pid!] },
    agent: { pids: [agent.child.pid!] },
    ...stores,
  });
  const cpuBefore = cpu.read();
  const started = performance.now();
  const run = await load(`${scheduler.url}/webhook-trigger/${hook.id}`, signed(hook.secret));
  const accepted = run.statuses.get(202) ?? 0;
  const trig = summary(run);
  return { base, run, accepted, trig, cpu, cpuBefore, started };
}

type Ceilings = Awaited<ReturnType<typeof measureCeilings>>;
type Triggers = Awaited<ReturnType<typeof sendTriggers>>;

/** The intake's figures beside the ceilings'. */
function printIntake({ base, trig }: Triggers, { raw, rawIndexed, floorOptions, floor }: Ceilings): void {
  out(`minimal Express route : ${f(base.rps, 0)} req/s, p50 ${f(base.p50)} ms, p99 ${f(base.p99)} ms`);
  out(`raw database inserts  : ${f(raw, 0)} inserts/s at concurrency ${CONCURRENCY} (a collection without indexes)`);
  out(
    `raw execution inserts : ${f(rawIndexed, 0)} inserts/s at concurrency ${CONCURRENCY} (the executions collection, its indexes)`,
  );
  for (const line of floorLines(floor, floorOptions)) out(line);
  out(
    `trigger → 202         : ${f(trig.rps, 0)} triggers/s (${f(trig.rps / raw, 2)}× raw inserts, ${f(trig.rps / rawIndexed, 2)}× raw execution inserts, ${f(trig.rps / base.rps, 2)}× baseline), p50 ${f(trig.p50)} ms (${f(trig.p50 / base.p50, 1)}×), p99 ${f(trig.p99)} ms (${f(trig.p99 / base.p99, 1)}×)`,
  );
  out(
    `trigger vs floor      : intake ${f(trig.rps / floor.intake, 2)}× the floor's, p50 ${f(trig.p50 / floor.p50, 1)}×, p99 ${f(trig.p99 / floor.p99, 1)}× its insert + enqueue`,
  );
}

/** The floor per process (floor-procs.ts): the same signed triggers at the same concurrency, in the same run. */
const processFloor = (dbs: TestDatabases, llm: FakeLlm): Promise<ProcessFloor> =>
  runProcessFloor({
    dbName: dbs.conn.name,
    redisUrl: testInfra.redisUrl,
    llmBaseUrl: llm.baseUrl,
    total: TOTAL,
    warmup: WARMUP,
    send: async (url, key, count) => (await load(url, signed(Buffer.from(key, 'utf8')), count)).statuses.get(202) ?? 0,
  });

/**
 * The CPU each process spent per trigger, beside the floor per process measured just before ours and just after
 * (`before`, then here), their mean: the shared machine drifts over minutes (a floor once cost 1.5× more a pass
 * later), and the mean of two measurements that bracket ours cancels a steady drift.
 */
async function compareProcessFloor(
  dbs: TestDatabases,
  llm: FakeLlm,
  ours: Map<string, number>,
  before: ProcessFloor,
): Promise<void> {
  const after = await processFloor(dbs, llm);
  const keys = new Set([...before.perTrigger.keys(), ...after.perTrigger.keys()]);
  const mean = (k: string) => ((before.perTrigger.get(k) ?? 0) + (after.perTrigger.get(k) ?? 0)) / 2;
  const procFloor = {
    seconds: before.seconds + after.seconds,
    perTrigger: new Map([...keys].map((k) => [k, mean(k)])),
  };
  const pairs = { scheduler: 'intake', worker: 'worker', agent: 'agent' };
  out(
    `CPU per trigger, first trigger to last run ended (/proc/<pid>/stat user + system); floor: floor-procs.ts, the mean of one run before ours (${f(before.seconds)} s) and one after (${f(after.seconds)} s)`,
  );
  for (const [name, m] of [
    ['before', before],
    ['after ', after],
  ] as const)
    out(`  floor ${name}: ${[...m.perTrigger].map(([k, ms]) => `${k} ${f(ms, 2)}`).join(', ')} ms per trigger`);
  for (const line of cpuLines('  ours ', ours, procFloor.perTrigger, pairs)) out(line);
  const sum = (m: Map<string, number>, keys: string[]) => keys.reduce((n, k) => n + (m.get(k) ?? 0), 0);
  const oursNode = sum(ours, Object.keys(pairs));
  const floorNode = sum(procFloor.perTrigger, Object.values(pairs));
  out(
    `  ours  three processes: ${f(oursNode, 2)} ms per trigger (${f(oursNode / floorNode, 2)}× the floor's ${f(floorNode, 2)} ms)`,
  );
  for (const line of cpuLines('  floor', procFloor.perTrigger)) out(line);
}

async function main(): Promise<void> {
  const dbs = await createTestDatabases('bench_trigger');
  const llm = await startFakeLlm('openai');
  const prefix = uniqueName('benchq');
  const procs: ServiceProcess[] = [];
  let seeding: mongoose.Connection | undefined;
  try {
    const { stack, baseline, hook, warmHook } = await startBenchStack(dbs, llm, prefix, procs);
    if (PRESEED > 0) await preseed(dbs, (c) => (seeding = c));
    if (WARMUP > 0) await warmUp(stack, warmHook);
    const ceilings = await measureCeilings(dbs, hook.id);
    const { floor } = ceilings;

    const floorBefore = await processFloor(dbs, llm);
    const triggers = await sendTriggers(stack, hook, baseline);
    const { run, accepted, trig, cpu, cpuBefore, started } = triggers;
    // Intake first: its figures stand whatever happens while the runs drain.
    printIntake(triggers, ceilings);
    // Counted without a socket timeout when the collection is large.
    const executions = (seeding ?? dbs.conn).collection('executions');
    // While the runs drain, progress comes from the worker's own metrics (ended attempts): polling the database every
    // 100 ms took FerretDB's time from the runs it counted (a count by `webhook_id` scanned the whole preseeded
    // collection; one by the webhook's list still read 2,000 documents per poll). The database is asked once, after.
    // Every 250 ms, as the process floor's progress: each read of the metrics costs the worker CPU of the phase.
    const done = (await waitForRuns(stack.worker.url, WARMUP + accepted)) - WARMUP;
    const completeSeconds = (performance.now() - started) / 1000;
    const ours = new Map([...spent(cpuBefore, cpu.read())].map(([k, ms]) => [k, ms / Math.max(1, accepted)]));
    const succeeded = await executions.countDocuments({ webhook_id: hook.id, status: 'succeeded' });
    out(`statuses: ${JSON.stringify(Object.fromEntries(run.statuses))}; runs succeeded ${succeeded}/${accepted}`);
    out(
      `completed runs        : ${f(done / completeSeconds, 0)} runs/s end to end (${f(done / completeSeconds / trig.rps, 2)}× intake), ${done} in ${f(completeSeconds)} s`,
    );
    out(
      `completed vs floor    : ${f(done / completeSeconds / floor.completed, 2)}× the floor's ${f(floor.completed, 0)} completed/s (${f(floor.completedSeconds)} s for ${TOTAL})`,
    );
    recordPass({
      bench: 'trigger',
      stored: PRESEED,
      figures: {
        intake_per_s: trig.rps,
        floor_intake_per_s: floor.intake,
        runs_per_s: done / completeSeconds,
        floor_runs_per_s: floor.completed,
      },
    });
    await compareProcessFloor(dbs, llm, ours, floorBefore);
  } finally {
    await Promise.all(procs.map((p) => p.stop(5_000)));
    // A database of a million documents takes FerretDB minutes to drop: done here without a socket timeout, so the
    // next benchmark does not start while it is still going.
    await seeding?.dropDatabase().catch(() => undefined);
    await seeding?.close();
    await llm.close();
    await dbs.conn
      .useDb(`${dbs.conn.name}_agent`)
      .dropDatabase()
      .catch(() => undefined);
    await dbs.cleanup();
  }
}

runBench('trigger', main);
