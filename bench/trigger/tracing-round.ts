/**
 * A round of the tracing comparison (tracing.ts): one variant's triggers sent, its runs awaited and its spans
 * exported, with the CPU each process spent meanwhile; and the processes' CPU while no trigger comes.
 */
import type { ServiceProcess } from '@platform/testing';

import { out, percentile } from '../kit/bench-kit';
import { spent, type CpuGroups } from '../kit/proc-cpu';
import { endedAttempts, failedAttempts, load, signed, waitForRuns, type Stack } from './stack';
import {
  CONCURRENCY,
  IDLE_MS,
  IDLE_QUIET_MS,
  MARKS,
  PROCS,
  RUNS_WAIT_MS,
  SETTLE_MS,
  type Proc,
} from './tracing-config';

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

export interface Variant {
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

export interface Round {
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

export async function round(v: Variant, total: number, cycle: number): Promise<Round> {
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
export async function idleRates(variants: Variant[]): Promise<Map<Proc, number>[]> {
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
