/**
 * The cron benchmark's window of whole fire minutes: the machine's CPU spent on each minute's burst, and a timeline
 * of the target's hits and the queues' depth until the window's fires are finished or the grace is over.
 */
import { loadavg } from 'node:os';

import { testInfra } from '@platform/testing';

import { machineBusyMs, out } from '../kit/bench-kit';
import { cpuGroups, spent, storeRules } from '../kit/proc-cpu';
import { GRACE_MS, iso, MIN, MINUTES, N, sleep, WARMUP_MINUTES } from './common';
import type { CronStack } from './stack';

export interface FireWindow {
  /** The first fire minute. */
  t0: number;
  /** The fire minutes. */
  window: number[];
  /** The last fire minute, the end of its minute, and the end of the grace after it. */
  tLast: number;
  windowEnd: number;
  deadline: number;
}

/**
 * The window: whole fire minutes, starting WARMUP_MINUTES after the first minute boundary with every scheduler in
 * place (those minutes' fires run, unmeasured).
 */
export function fireWindow(ready: number): FireWindow {
  const warmup = Math.ceil((ready + 1_000) / MIN) * MIN;
  const t0 = warmup + WARMUP_MINUTES * MIN;
  const window = Array.from({ length: MINUTES }, (_, k) => t0 + k * MIN);
  const tLast = window.at(-1) as number;
  const windowEnd = tLast + MIN;
  const deadline = windowEnd + GRACE_MS;
  out(
    `window: fires at ${window.map(iso).join(', ')} UTC (expected ${N * MINUTES} fires), after ${WARMUP_MINUTES} warm-up minute(s) from ${iso(warmup)}; grace until ${iso(deadline)}`,
  );
  return { t0, window, tLast, windowEnd, deadline };
}

export interface Bursts {
  ms: number;
  byProcess: Map<string, number>;
  seconds: number;
  complete: boolean;
  minutes: number;
}

/**
 * The machine's CPU spent on each fire minute's burst, summed over the window's minutes (one minute alone swung by
 * ±15 % between runs): from just before a minute's fires fall due until its last call arrives at the target, or the
 * next minute begins (every process counted: services, FerretDB, PostgreSQL, Redis, this bench). Each process's
 * share too (/proc/<pid>/stat): the scheduler, the workers and the stores.
 */
export async function measureBursts(
  { scheduler, procs, target }: CronStack,
  { window, deadline }: FireWindow,
): Promise<Bursts> {
  const cpu = cpuGroups({
    scheduler: { pids: [scheduler.child.pid!] },
    workers: { pids: procs.slice(1).map((p) => p.child.pid!) },
    ...storeRules(Number(new URL(testInfra.mongoUri).port || 27017), Number(new URL(testInfra.redisUrl).port || 6379)),
  });
  const total = { ms: 0, byProcess: new Map<string, number>(), seconds: 0, complete: true, minutes: 0 };
  // The schedules fire in the minutes before the window too (from their creation on): hits are counted from the
  // target's total when the window's first minute is about to fall due, not from the target's start.
  let base = 0;
  for (const [k, due] of window.entries()) {
    await sleep(due - 500 - Date.now());
    if (k === 0) base = target.total;
    const before = machineBusyMs();
    const byBefore = cpu.read();
    const from = Date.now();
    const until = Math.min(due + MIN - 500, deadline);
    while (target.total - base < N * (k + 1) && Date.now() < until) await sleep(100);
    total.ms += machineBusyMs() - before;
    for (const [name, ms] of spent(byBefore, cpu.read()))
      total.byProcess.set(name, (total.byProcess.get(name) ?? 0) + ms);
    total.seconds += (Date.now() - from) / 1000;
    total.complete &&= target.total - base >= N * (k + 1);
    total.minutes++;
  }
  return total;
}

/** Timeline: every 15 s, hits at the target since the last line and the queues' depth. Returns when it stopped. */
export async function watchTimeline(
  { dbs, fires, httpCalls, target }: CronStack,
  { t0, tLast, windowEnd, deadline }: FireWindow,
): Promise<number> {
  const executions = dbs.conn.collection('executions');
  const windowFilter = { scheduled_for: { $gte: new Date(t0), $lte: new Date(tLast) } };
  const finished = ['succeeded', 'failed', 'skipped'];
  let lastTotal = target.total;
  let lastAt = Date.now();
  for (;;) {
    await sleep(15_000 - (Date.now() % 15_000) + 200);
    const now = Date.now();
    const [f, h] = await Promise.all([
      fires.getJobCounts('wait', 'active', 'delayed'),
      httpCalls.getJobCounts('wait', 'active', 'delayed'),
    ]);
    const rate = ((target.total - lastTotal) * 1000) / (now - lastAt);
    lastTotal = target.total;
    lastAt = now;
    let doneLine = '';
    let allDone = false;
    if (now >= windowEnd) {
      // FerretDB may be too busy to answer in time: then the next line asks again.
      const done = await executions
        .countDocuments({ ...windowFilter, status: { $in: finished } }, { maxTimeMS: 10_000 })
        .catch(() => null);
      doneLine = `; window fires finished ${done ?? '(count timed out)'}/${N * MINUTES}`;
      allDone = done !== null && done >= N * MINUTES;
    }
    out(
      `  ${iso(now)} hits ${rate.toFixed(1)}/s (total ${target.total}); schedule-fires wait ${f.wait} active ${f.active} delayed ${f.delayed}; ` +
        `http-calls wait ${h.wait} active ${h.active}${doneLine}; load ${loadavg()[0]?.toFixed(2)}`,
    );
    if (allDone || now >= deadline) break;
  }
  const observedUntil = Date.now();
  return observedUntil;
}
