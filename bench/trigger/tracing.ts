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
  type Jaeger,
  type JaegerTrace,
  type ServiceProcess,
} from '@platform/testing';

import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';
import { preseedExecutions } from '../kit/executions';
import { cpuGroups, spent, storeRules, type CpuGroups } from '../kit/proc-cpu';
import { deletePrefix } from '../kit/redis-prefix';
import {
  createWebhook,
  endedAttempts,
  failedAttempts,
  load,
  newStackKeys,
  signed,
  startStack,
  waitForRuns,
  type Stack,
} from './stack';
import { TRACING_OFF, tracingOn } from './tracing-env';

const TOTAL = Number(process.env.BENCH_TRACING_TRIGGERS ?? 500);
const WARMUP = Number(process.env.BENCH_TRACING_WARMUP ?? 300);
const CYCLES = Number(process.env.BENCH_TRACING_CYCLES ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const PRESEED = Number(process.env.BENCH_PRESEED_EXECUTIONS ?? 100_000);
const VARIANTS = (process.env.BENCH_TRACING_VARIANTS ?? 'off on').split(/[\s,]+/).filter(Boolean);
const MODE = process.env.BENCH_TRACING_MODE ?? 'together';
const TOGETHER = MODE === 'together';
/** Issue 45: on costs at most this many times off's CPU per trigger (the three processes together). */
const TARGET = 1.15;
/** How long a round waits for its runs to end. */
const RUNS_WAIT_MS = 300_000;
/** How long the stacks are watched idle, before the cycles and after, once quiet for IDLE_QUIET_MS. */
const IDLE_MS = 10_000;
const IDLE_QUIET_MS = 5_000;
/**
 * BENCH_TRACING_MARKS=1: print each variant's process ids and each round's window (µs, monotonic), to cut the
 * services' CPU profiles (SERVICE_CPU_PROF_DIR, one file per process id) to it.
 */
const MARKS = process.env.BENCH_TRACING_MARKS === '1';

const PROCS = ['scheduler', 'worker', 'agent'] as const;
type Proc = (typeof PROCS)[number];
/** The three processes, and their sum. */
const KEYS = [...PROCS, 'three'] as const;
type Key = (typeof KEYS)[number];
const BUILT_IN = ['off', 'on', 'always_off'];

/** A variant's own variables beyond tracing on (BENCH_TRACING_ENV_<name>: "K=V K=V"). */
const extraEnv = (variant: string): Record<string, string> => {
  if (BUILT_IN.includes(variant)) return {};
  const spec = process.env[`BENCH_TRACING_ENV_${variant}`];
  if (spec === undefined)
    throw new Error(
      `BENCH_TRACING_VARIANTS: "${variant}" is not off, on or always_off; set BENCH_TRACING_ENV_${variant}`,
    );
  return Object.fromEntries(
    spec
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
};

/**
 * The stack's OTEL_* variables. A traced stack's spans carry the resource attribute `bench.variant` (sent once per
 * export) so that Jaeger's traces can be told apart.
 */
const stackEnv = (variant: string, jaeger: Jaeger): Record<string, string> => {
  if (variant === 'off') return TRACING_OFF;
  const sampler = variant === 'always_off' ? 'always_off' : 'always_on';
  return {
    OTEL_RESOURCE_ATTRIBUTES: `bench.variant=${variant}`,
    ...tracingOn(jaeger.otlpEndpoint, sampler),
    ...extraEnv(variant),
  };
};

/**
 * After a round's last run ended: longer than the longest batch schedule delay of the variants (1 s by default), so
 * that the batch processors have exported; the same wait for every variant.
 */
const SETTLE_MS =
  Math.max(
    ...VARIANTS.map((v) => Number(extraEnv(v).OTEL_BSP_SCHEDULE_DELAY ?? process.env.OTEL_BSP_SCHEDULE_DELAY ?? 1_000)),
  ) + 500;

interface Tracing {
  exported: number;
  dropped: Map<string, number>;
  queued: number;
}

/** A service's tracing counters from its /metrics (0 while tracing is off). */
async function tracingOf(p: ServiceProcess): Promise<Tracing> {
  const text = await (await fetch(`${p.url}/metrics`)).text();
  const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const dropped = new Map<string, number>();
  for (const m of text.matchAll(/^tracing_spans_dropped_total\{([^}]*)\} (\S+)$/gm))
    dropped.set(/reason="([^"]*)"/.exec(m[1]!)?.[1] ?? '', Number(m[2]));
  return {
    exported: value(/^tracing_spans_exported_total(?:\{[^}]*\})? (\S+)$/m),
    dropped,
    queued: value(/^tracing_span_queue_size(?:\{[^}]*\})? (\S+)$/m),
  };
}

const tracingOfAll = async (s: Stack) =>
  new Map(await Promise.all(PROCS.map(async (name) => [name, await tracingOf(s[name])] as const)));

/**
 * Waits `SETTLE_MS`, then until every process's span queue is empty and its exported count is what it was 300 ms
 * before (the last batch's POST answered). The same reads whatever the variant, so that their cost is the same.
 */
async function settle(s: Stack): Promise<Map<Proc, Tracing>> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  let last = await tracingOfAll(s);
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await tracingOfAll(s);
    const still = PROCS.every((p) => now.get(p)!.queued === 0 && now.get(p)!.exported === last.get(p)!.exported);
    last = now;
    if (still) break;
  }
  return last;
}

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

interface Variant {
  name: string;
  stack: Stack;
  hook: { id: string; secret: Buffer };
  dbName: string;
  prefix: string;
  cpu: CpuGroups;
  /** Triggers sent so far (warm-up included). */
  sent: number;
  /** ms of CPU per second while no trigger comes, by process. */
  idle: Map<Proc, number>;
}

interface Round {
  variant: string;
  cycle: number;
  statuses: Map<number, number>;
  accepted: number;
  ended: number;
  failed: number;
  intakePerS: number;
  p50: number;
  p99: number;
  /** First trigger to last run ended. */
  seconds: number;
  /** The CPU window: first trigger to spans exported. */
  windowSeconds: number;
  /** ms of CPU in the window by group (the processes, the stores, Jaeger). */
  used: Map<string, number>;
  exported: Map<Proc, number>;
  dropped: Map<string, number>;
}

async function round(v: Variant, total: number, cycle: number): Promise<Round> {
  const before = await tracingOfAll(v.stack);
  const endedBefore = await endedAttempts(v.stack.worker.url);
  const failedBefore = await failedAttempts(v.stack.worker.url);
  const cpuBefore = v.cpu.read();
  const markStart = process.hrtime.bigint();
  const started = performance.now();
  const offset = v.sent;
  const sign = signed(v.hook.secret);
  const run = await load(`${v.stack.scheduler.url}/webhook-trigger/${v.hook.id}`, total, CONCURRENCY, (i) =>
    sign(offset + i),
  );
  v.sent += total;
  const accepted = run.statuses.get(202) ?? 0;
  const ended = (await waitForRuns(v.stack.worker.url, endedBefore + accepted, RUNS_WAIT_MS)) - endedBefore;
  const seconds = (performance.now() - started) / 1000;
  const after = await settle(v.stack);
  const used = spent(cpuBefore, v.cpu.read());
  const windowSeconds = (performance.now() - started) / 1000;
  // The round's window on the monotonic clock of the services' CPU profiles (SERVICE_CPU_PROF_DIR), in µs.
  if (MARKS) out(`  mark ${v.name} ${cycle} ${markStart / 1000n} ${process.hrtime.bigint() / 1000n}`);
  if (ended < accepted) throw new Error(`${v.name}: ${ended} of ${accepted} runs ended within the wait`);
  const dropped = new Map<string, number>();
  for (const p of PROCS)
    for (const [reason, n] of after.get(p)!.dropped) {
      const d = n - (before.get(p)!.dropped.get(reason) ?? 0);
      if (d) dropped.set(`${p}:${reason}`, d);
    }
  return {
    variant: v.name,
    cycle,
    statuses: run.statuses,
    accepted,
    ended,
    failed: (await failedAttempts(v.stack.worker.url)) - failedBefore,
    intakePerS: total / run.seconds,
    p50: percentile(run.latencies, 50),
    p99: percentile(run.latencies, 99),
    seconds,
    windowSeconds,
    used,
    exported: new Map(PROCS.map((p) => [p, after.get(p)!.exported - before.get(p)!.exported])),
    dropped,
  };
}

/** ms of CPU per second each variant's processes spend while no trigger comes. */
async function idleRates(variants: Variant[]): Promise<Map<Proc, number>[]> {
  // What the rounds before set going (a last GC, completed-job clean-ups) settles first.
  await new Promise((r) => setTimeout(r, IDLE_QUIET_MS));
  const before = variants.map((v) => v.cpu.read());
  const started = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const seconds = (performance.now() - started) / 1000;
  return variants.map((v, i) => {
    const used = spent(before[i]!, v.cpu.read());
    return new Map(PROCS.map((p) => [p, (used.get(p) ?? 0) / seconds]));
  });
}

const f = (n: number, d = 2) => n.toFixed(d);
const sumOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const lowerMedian = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;

/** ms of CPU of `key` in a round; `net`: less what the processes spend idle over the same time. */
function cpuOf(r: Round, v: Variant, key: Key, net: boolean): number {
  const procs = key === 'three' ? PROCS : [key];
  return sumOf(procs.map((p) => (r.used.get(p) ?? 0) - (net ? v.idle.get(p)! * r.windowSeconds : 0)));
}

/** CPU per trigger of `key` over rounds (their ms over their triggers). */
const perTrigger = (rounds: Round[], v: Variant, key: Key, net: boolean) =>
  sumOf(rounds.map((r) => cpuOf(r, v, key, net))) / Math.max(1, sumOf(rounds.map((r) => r.accepted)));

function printRound(r: Round): void {
  const per = (name: string) => (r.used.get(name) ?? 0) / Math.max(1, r.accepted);
  const shared = TOGETHER
    ? ''
    : ` (stores ${f(per('ferretdb') + per('postgresql') + per('redis'))}, jaeger ${f(per('jaeger'))})`;
  const exported = sumOf([...r.exported.values()]);
  const statuses =
    r.accepted < sumOf([...r.statuses.values()]) ? `, answers ${JSON.stringify(Object.fromEntries(r.statuses))}` : '';
  const failed = r.failed ? `, ${r.failed} failed attempts` : '';
  out(
    `  cycle ${r.cycle + 1} ${r.variant.padEnd(10)}: ${PROCS.map((p) => `${p} ${f(per(p))}`).join(', ')}, three ${f(sumOf(PROCS.map(per)))} ms CPU per trigger${shared}; ${f(r.intakePerS, 0)} triggers/s, p50 ${f(r.p50, 0)} ms, p99 ${f(r.p99, 0)} ms; ${r.ended}/${r.accepted} runs in ${f(r.seconds, 1)} s${statuses}${failed}; spans exported ${exported} (${f(exported / Math.max(1, r.accepted), 1)} per trigger), dropped ${sumOf([...r.dropped.values()])}`,
  );
}

function summary(rounds: Round[], variants: Variant[]): void {
  const byName = new Map(variants.map((v) => [v.name, v]));
  const off = byName.get('off')!;
  const cycles = [...new Set(rounds.map((r) => r.cycle))];
  const clean = (c: number) =>
    rounds.filter((r) => r.cycle === c).every((r) => r.accepted === sumOf([...r.statuses.values()]) && r.failed === 0);
  const kept = cycles.filter(clean).length ? cycles.filter(clean) : cycles;
  const left = cycles.filter((c) => !kept.includes(c));
  if (left.length)
    out(`  cycle(s) ${left.map((c) => c + 1).join(', ')} left out: a trigger not answered 202 or a run attempt failed`);
  if (!cycles.some(clean)) out('  NO cycle without failures: every cycle is counted');
  const of = (name: string) => rounds.filter((r) => r.variant === name && kept.includes(r.cycle));
  out(
    `CPU per trigger by variant (ms, ${kept.length} cycle(s) pooled; first trigger to last run ended and spans exported, /proc/<pid>/stat user + system; "net": less the processes' idle CPU over the same time):`,
  );
  for (const v of variants) {
    const cells = (net: boolean) =>
      KEYS.map((k) => {
        const ms = perTrigger(of(v.name), v, k, net);
        const ratio = v.name === 'off' ? '' : ` (${f(ms / perTrigger(of('off'), off, k, net))}×)`;
        return `${k} ${f(ms)}${ratio}`;
      }).join(', ');
    // Shared by all variants when they run at once: given only when they run one after the other.
    const groups = (names: string[]) =>
      sumOf(of(v.name).flatMap((r) => names.map((n) => r.used.get(n) ?? 0))) /
      Math.max(1, sumOf(of(v.name).map((r) => r.accepted)));
    const shared = TOGETHER
      ? ''
      : `; stores ${f(groups(['ferretdb', 'postgresql', 'redis']))}, jaeger ${f(groups(['jaeger']))}`;
    out(`  ${v.name.padEnd(10)}: ${cells(false)}${shared}`);
    out(`  ${''.padEnd(10)}  net: ${cells(true)}`);
  }
  for (const v of variants.filter((x) => x.name !== 'off')) {
    const ratios = (net: boolean) => {
      const pooled = perTrigger(of(v.name), v, 'three', net) / perTrigger(of('off'), off, 'three', net);
      const perCycle = kept.map((c) => {
        const a = rounds.find((r) => r.variant === v.name && r.cycle === c)!;
        const b = rounds.find((r) => r.variant === 'off' && r.cycle === c)!;
        return cpuOf(a, v, 'three', net) / a.accepted / (cpuOf(b, off, 'three', net) / b.accepted);
      });
      return { pooled, perCycle };
    };
    const raw = ratios(false);
    const net = ratios(true);
    const verdict =
      v.name === 'always_off'
        ? ''
        : `; target ≤ ${TARGET}: ${raw.pooled <= TARGET ? 'yes' : 'NO'} as measured, ${net.pooled <= TARGET ? 'yes' : 'NO'} net`;
    out(
      `tracing ${v.name} / off, three processes: ${f(raw.pooled)}× CPU per trigger as measured (per cycle ${raw.perCycle.map((x) => f(x)).join(', ')}; lower median ${f(lowerMedian(raw.perCycle))}), ${f(net.pooled)}× net of idle (per cycle ${net.perCycle.map((x) => f(x)).join(', ')})${verdict}`,
    );
  }
  // What the machine's noise alone does to the figures: the off rounds against each other.
  const offRounds = of('off').map((r) => cpuOf(r, off, 'three', false) / r.accepted);
  if (offRounds.length > 1)
    out(
      `  off rounds among themselves: ${offRounds.map((x) => f(x)).join(', ')} ms (max/min ${f(Math.max(...offRounds) / Math.min(...offRounds))}×)`,
    );
}

/** Spans exported and dropped per traced variant, and what Jaeger holds of their traces. */
async function spansReport(rounds: Round[], variants: Variant[], jaeger: Jaeger): Promise<void> {
  const traced = variants.filter((v) => v.name !== 'off' && v.name !== 'always_off');
  if (!traced.length) return;
  // Read once all rounds are done: every trigger sent to a traced stack (warm-up included) should be a whole trace.
  const all = await jaeger.tracesOf('scheduler', sumOf(traced.map((v) => v.sent)) + 1_000);
  const variantOf = (t: JaegerTrace) =>
    Object.values(t.processes)
      .flatMap((p) => p.tags)
      .find((tag) => tag.key === 'bench.variant')?.value;
  for (const v of traced) {
    const own = rounds.filter((r) => r.variant === v.name);
    const exported = new Map(PROCS.map((p) => [p, sumOf(own.map((r) => r.exported.get(p)!))]));
    const dropped = new Map<string, number>();
    for (const r of own) for (const [k, n] of r.dropped) dropped.set(k, (dropped.get(k) ?? 0) + n);
    const accepted = sumOf(own.map((r) => r.accepted));
    out(
      `${v.name}: spans exported in its measured rounds: ${PROCS.map((p) => `${p} ${exported.get(p)} (${f(exported.get(p)! / Math.max(1, accepted), 1)} per trigger)`).join(', ')}; dropped: ${dropped.size ? [...dropped].map(([k, n]) => `${k} ${n}`).join(', ') : '0'}`,
    );
    const traces = all.filter((t) => variantOf(t) === v.name);
    const whole = traces.filter((t) => {
      const names = new Set(Object.values(t.processes).map((p) => p.serviceName));
      return PROCS.every((p) => names.has(p));
    });
    out(
      `  Jaeger: ${traces.length} traces with a scheduler span (${v.sent} triggers sent to the stack), ${whole.length} with spans of all three processes, ${sumOf(traces.map((t) => t.spans.length))} spans in them`,
    );
    // What a trigger's trace is made of: spans per trace by process and name, over the whole traces.
    const names = new Map<string, number>();
    for (const t of whole)
      for (const s of t.spans) {
        const key = `${t.processes[s.processID]?.serviceName ?? '?'} "${s.operationName}"`;
        names.set(key, (names.get(key) ?? 0) + 1);
      }
    out(
      `  spans per trace: ${[...names]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([k, n]) => `${k} ${f(n / Math.max(1, whole.length), 1)}`)
        .join(', ')}`,
    );
    if (accepted > 0 && sumOf([...exported.values()]) === 0) throw new Error(`${v.name}: tracing exported no span`);
    if (whole.length < v.sent) out(`  MISSING: ${v.sent - whole.length} triggers without a whole trace in Jaeger`);
  }
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
  const keys = newStackKeys();
  const procs: ServiceProcess[] = [];
  const variants: Variant[] = [];
  const prefixes: string[] = [];
  const stores = storeRules(
    Number(new URL(testInfra.mongoUri).port || 27017),
    Number(new URL(testInfra.redisUrl).port || 6379),
  );
  try {
    const apiKey = await dbs.mintKey({ user_id: 'bench', org_id: 'bench' });
    for (const name of VARIANTS) {
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
        out(
          `  ${name}: preseeded ${PRESEED.toLocaleString('en')} executions in ${f((performance.now() - t) / 1000, 0)} s`,
        );
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
      variants.push({ name, stack, hook, dbName, prefix, cpu, sent: 0, idle: new Map() });
    }
    out(
      `bench/trigger tracing: ${VARIANTS.join(', ')}${TOGETHER ? ' at once' : ', alternating'}; ${CYCLES} cycle(s) of ${TOTAL} triggers per variant at concurrency ${CONCURRENCY} after ${WARMUP} unmeasured, ${PRESEED.toLocaleString('en')} executions stored; ${machineLoad()}`,
    );
    if (WARMUP > 0) await Promise.all(variants.map((v) => round(v, WARMUP, -1)));
    const idleBefore = await idleRates(variants);
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
}

runBench('trigger tracing', main);
