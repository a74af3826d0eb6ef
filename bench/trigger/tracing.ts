/**
 * What tracing costs (issue 45: "tracing on at 100% sampling costs ≤ 15% more CPU per trigger than tracing off,
 * measured by the trigger benchmark in one run; off costs nothing measurable"). One stack per variant (stack.ts: the
 * agent service, scheduler and worker processes as the trigger benchmark starts them, logs at info), each with its
 * own database (`BENCH_PRESEED_EXECUTIONS`, 100,000, ended executions stored first) and queue prefix:
 *   off         the OTEL_* variables unset (as `pnpm start`): libs/tracing starts nothing;
 *   on          OTEL_EXPORTER_OTLP_ENDPOINT = a private Jaeger's, OTEL_TRACES_SAMPLER=always_on, default batching;
 *   always_off  the same with OTEL_TRACES_SAMPLER=always_off: instrumentation and context propagation, no span kept.
 * `BENCH_TRACING_VARIANTS` ("off on"; "off on always_off" adds the sampled-out stack) chooses them (off must be one).
 * Two by default: each stack is three processes, and on the 2-CPU machines this runs on a third stack at once
 * oversubscribes the CPUs further, which inflates what every span costs (the ratio on/off measured 1.15–1.19× with
 * three stacks, 1.12× with two, on the same code). Any other name is tracing on with the
 * variables of `BENCH_TRACING_ENV_<name>` ("K=V K=V") added, to compare settings in the same run, e.g.
 * BENCH_TRACING_VARIANTS="off on bsp" BENCH_TRACING_ENV_bsp="OTEL_BSP_SCHEDULE_DELAY=5000".
 *
 * Each stack first takes `BENCH_TRACING_WARMUP` (300) triggers unmeasured; then `BENCH_TRACING_CYCLES` (8) cycles of
 * one round of `BENCH_TRACING_TRIGGERS` (500) signed triggers at `BENCH_CONCURRENCY` (32) per variant. In a cycle the
 * variants' rounds run at the same time (`BENCH_TRACING_MODE=together`, the default: the shared machine's load at any
 * moment weighs on all alike), or one after the other, the order reversed every other cycle (`alternate`). A round's
 * CPU (`/proc/<pid>/stat`, user + system) runs from its first trigger until its last run ended and the processes' span
 * queues were empty (every span exported). What the processes spend idle (timers, pollers, sweeps; measured before
 * and after the cycles) is also taken out, as "net": it weighs more the longer a round takes, which has nothing to do
 * with tracing. A cycle in which a trigger was not answered 202 or a run attempt failed is left out (a disturbance of
 * the shared stores). Prints the CPU per trigger of each process and of the three together per variant, the ratios to
 * off (pooled and per cycle), the spans exported and dropped (the services' /metrics) and the traces Jaeger holds.
 *
 *   node dist/bench/trigger/tracing.js
 */
import { readdirSync, readFileSync } from 'node:fs';

import { mongoose } from '@platform/db';
import { IORedis } from '@platform/queue';
import {
  createTestDatabases,
  startFakeLlm,
  startJaeger,
  testInfra,
  uniqueName,
  type FakeLlm,
  type Jaeger,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { machineLoad, out, runBench } from '../kit/bench-kit';
import { preseedExecutions } from '../kit/executions';
import { cpuGroups, storeRules, type ProcessRule } from '../kit/proc-cpu';
import { deletePrefix } from '../kit/redis-prefix';
import { createWebhook, newStackKeys, startStack, type StackKeys } from './stack';
import {
  CONCURRENCY,
  CYCLES,
  IDLE_MS,
  MARKS,
  MODE,
  PRESEED,
  PROCS,
  stackEnv,
  TOGETHER,
  TOTAL,
  VARIANTS,
  WARMUP,
} from './tracing-config';
import { f, printRound, spansReport, summary, sumOf } from './tracing-report';
import { idleRates, round, type Round, type Variant } from './tracing-round';

/** Pids of the processes named `comm` (for the Jaeger this run starts: those that were not there before). */
const pidsOf = (comm: string): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === comm;
      } catch {
        return false;
      }
    })
    .map(Number);

/** What the run has started so far, stopped and removed at its end whatever happened. */
interface Run {
  dbs: TestDatabases;
  llm: FakeLlm;
  jaeger: Jaeger;
  /** The processes of the Jaeger this run started. */
  jaegerPids: number[];
  keys: StackKeys;
  stores: Record<string, ProcessRule>;
  procs: ServiceProcess[];
  prefixes: string[];
}

/** Starts variant `name`'s stack on a database and queue prefix of its own, stores its executions, makes its webhook. */
async function startVariant(run: Run, name: string, apiKey: string): Promise<Variant> {
  const { dbs, llm, jaeger, jaegerPids, keys, stores, procs, prefixes } = run;
  const dbName = `${dbs.conn.name}_${name}`;
  const prefix = uniqueName(`benchq_tracing_${name}`);
  prefixes.push(prefix); // removed at the end even when the stack does not start
  const stack = await startStack(
    {
      mongoUri: testInfra.mongoUri,
      redisUrl: testInfra.redisUrl,
      authDb: dbs.authDb,
      dbName,
      prefix,
      llmPort: llm.port,
      keys,
      env: stackEnv(name, jaeger),
    },
    (p) => procs.push(p),
  );
  // Stored once the processes run, as the trigger benchmark does (a scheduler starting on a store in use may
  // take longer than its readiness wait while it builds its indexes).
  if (PRESEED > 0) {
    const t = performance.now();
    const seeding = await mongoose.createConnection(testInfra.mongoUri, { dbName, socketTimeoutMS: 0 }).asPromise();
    try {
      const stored = await preseedExecutions(seeding.collection('executions'), PRESEED);
      if (stored < PRESEED) throw new Error(`preseed stored ${stored} of ${PRESEED} executions`);
    } finally {
      await seeding.close();
    }
    out(`  ${name}: preseeded ${PRESEED.toLocaleString('en')} executions in ${f((performance.now() - t) / 1000, 0)} s`);
  }
  const hook = await createWebhook(stack, apiKey, llm.baseUrl);
  const cpu = cpuGroups({
    scheduler: { pids: [stack.scheduler.child.pid!] },
    worker: { pids: [stack.worker.child.pid!] },
    agent: { pids: [stack.agent.child.pid!] },
    ...stores,
    jaeger: { pids: jaegerPids },
  });
  if (MARKS) out(`  pids ${name} ${PROCS.map((p) => `${p}=${stack[p].child.pid ?? ''}`).join(' ')}`);
  return { name, stack, hook, dbName, prefix, cpu, sent: 0, idle: new Map() };
}

/** The measured cycles; a failure stops them, and is returned beside the rounds done so far. */
async function runCycles(variants: Variant[]): Promise<{ rounds: Round[]; failure: unknown }> {
  const rounds: Round[] = [];
  let failure: unknown;
  try {
    for (let c = 0; c < CYCLES; c++) {
      const order = TOGETHER ? [variants] : (c % 2 === 0 ? variants : [...variants].reverse()).map((v) => [v]);
      for (const group of order) {
        const settled = await Promise.allSettled(group.map((v) => round(v, TOTAL, c)));
        for (const s of settled) if (s.status === 'fulfilled') printRound(s.value);
        rounds.push(...settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])));
        const rejected = settled.find((s) => s.status === 'rejected');
        if (rejected) throw rejected.reason;
      }
    }
  } catch (err) {
    // The figures of the cycles done so far are still printed; the run fails at the end.
    failure = err;
    out(`  stopped: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { rounds, failure };
}

/** Stops the processes, Jaeger and the LLM stand-in, removes the queues' keys and drops the databases. */
async function stopRun({ dbs, llm, jaeger, procs, prefixes }: Run): Promise<void> {
  // Each step on its own: a store gone away must not hide the error that ended the run.
  const quietly = (p: Promise<unknown>) => p.catch(() => undefined);
  // A process given time to exit writes its CPU profile (SERVICE_CPU_PROF_DIR); a traced one flushes its spans first.
  await Promise.all(procs.map((p) => quietly(p.stop(15_000))));
  await quietly(jaeger.stop());
  await quietly(llm.close());
  const redis = new IORedis(testInfra.redisUrl, { maxRetriesPerRequest: 1 });
  for (const prefix of prefixes) await quietly(deletePrefix(redis, prefix));
  redis.disconnect();
  for (const name of VARIANTS)
    for (const db of [`${dbs.conn.name}_${name}`, `${dbs.conn.name}_${name}_agent`])
      await quietly(
        (async () => {
          const conn = await mongoose
            .createConnection(testInfra.mongoUri, { dbName: db, socketTimeoutMS: 0, serverSelectionTimeoutMS: 5_000 })
            .asPromise();
          await conn.dropDatabase().finally(() => conn.close());
        })(),
      );
  await quietly(dbs.cleanup());
}

async function main(): Promise<void> {
  if (!VARIANTS.includes('off')) throw new Error('BENCH_TRACING_VARIANTS must include off');
  if (MODE !== 'together' && MODE !== 'alternate') throw new Error('BENCH_TRACING_MODE: together or alternate');
  // Each service process (and Jaeger) listens for this process's exit.
  process.setMaxListeners(Math.max(process.getMaxListeners(), 3 * VARIANTS.length + 10));
  const dbs = await createTestDatabases('bench_tracing');
  const llm = await startFakeLlm('openai');
  const jaegersBefore = new Set(pidsOf('jaeger'));
  const jaeger = await startJaeger();
  const jaegerPids = pidsOf('jaeger').filter((p) => !jaegersBefore.has(p));
  const run: Run = {
    dbs,
    llm,
    jaeger,
    jaegerPids,
    keys: newStackKeys(),
    stores: storeRules(
      Number(new URL(testInfra.mongoUri).port || 27017),
      Number(new URL(testInfra.redisUrl).port || 6379),
    ),
    procs: [],
    prefixes: [],
  };
  const variants: Variant[] = [];
  try {
    const apiKey = await dbs.mintKey({ user_id: 'bench', org_id: 'bench' });
    for (const name of VARIANTS) variants.push(await startVariant(run, name, apiKey));
    out(
      `bench/trigger tracing: ${VARIANTS.join(', ')}${TOGETHER ? ' at once' : ', alternating'}; ${CYCLES} cycle(s) of ${TOTAL} triggers per variant at concurrency ${CONCURRENCY} after ${WARMUP} unmeasured, ${PRESEED.toLocaleString('en')} executions stored; ${machineLoad()}`,
    );
    if (WARMUP > 0) await Promise.all(variants.map((v) => round(v, WARMUP, -1)));
    const idleBefore = await idleRates(variants);
    const { rounds, failure } = await runCycles(variants);
    const idleAfter = await idleRates(variants);
    variants.forEach((v, i) => {
      // The lower of the two: idle work is a floor, and what a reading catches beside it (a late clean-up) only adds.
      for (const p of PROCS) v.idle.set(p, Math.min(idleBefore[i]!.get(p)!, idleAfter[i]!.get(p)!));
    });
    out(
      `  idle (no trigger, ${IDLE_MS / 1000} s before the cycles and after): ${variants.map((v, i) => `${v.name} ${f(sumOf([...idleBefore[i]!.values()]), 1)}/${f(sumOf([...idleAfter[i]!.values()]), 1)}`).join(', ')} ms CPU per second (the three processes)`,
    );
    // A cycle counts when every variant's round of it is done.
    const complete = rounds.filter((r) => rounds.filter((x) => x.cycle === r.cycle).length === variants.length);
    if (complete.length) {
      summary(complete, variants);
      await spansReport(complete, variants, jaeger);
    }
    if (failure) throw failure;
  } finally {
    await stopRun(run);
  }
}

runBench('trigger tracing', main);
