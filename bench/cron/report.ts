/**
 * The cron benchmark's figures, read once the services have stopped: per fire (schedule × minute) whether an
 * execution exists and was run, its lags, duplicates and misses, the throughput; what the services logged; the CPU
 * of the window's bursts and the floor beside them.
 */
import { testInfra, type ServiceProcess, type TestDatabases } from '@platform/testing';

import { out, recordPass } from '../kit/bench-kit';
import { cronFloor, cronFloorLine, pooledCronFloor } from '../trigger/floor-cron';
import { iso, lagLine, MINUTES, N, pct, PRESEED, s1, WARMUP_MINUTES, WORKER_CONCURRENCY, WORKERS } from './common';
import type { CronStack, Target } from './stack';
import type { Bursts, FireWindow } from './window';

interface Exec {
  schedule_id: string;
  fire_key: string;
  status: string;
  scheduled_for: Date | null;
  triggered_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** Each schedule's index by its id, and every execution stored. */
async function readExecutions(dbs: TestDatabases): Promise<{ idToIndex: Map<string, number>; all: Exec[] }> {
  const executions = dbs.conn.collection<Exec>('executions');
  const idToIndex = new Map<string, number>();
  for (const d of await dbs.conn
    .collection('schedules')
    .find({}, { projection: { _id: 1, 'http.name': 1 } })
    .toArray()) {
    const name = (d.http as { name?: string } | undefined)?.name ?? '';
    idToIndex.set(String(d._id), Number(name.replace('cron-', '')));
  }
  const all = await executions
    .find(
      {},
      {
        projection: {
          schedule_id: 1,
          fire_key: 1,
          status: 1,
          scheduled_for: 1,
          triggered_at: 1,
          started_at: 1,
          finished_at: 1,
        },
      },
    )
    .toArray();
  return { idToIndex, all };
}

/** Each hit belongs to the execution of its schedule that was running when it arrived (same machine clock). */
function attributeHits(
  all: Exec[],
  idToIndex: Map<string, number>,
  target: Target,
): { hitsOf: Map<string, number[]>; unattributed: number } {
  const execsBySchedule = new Map<number, Exec[]>();
  for (const e of all) {
    const i = idToIndex.get(e.schedule_id) ?? -1;
    const list = execsBySchedule.get(i);
    if (list) list.push(e);
    else execsBySchedule.set(i, [e]);
  }
  const hitsOf = new Map<string, number[]>(); // fire_key → arrival times
  let unattributed = 0;
  for (const [i, times] of target.hits) {
    const list = execsBySchedule.get(i) ?? [];
    for (const t of times) {
      const e = list.find(
        (x) => x.started_at && x.started_at.getTime() - 5 <= t && t <= (x.finished_at?.getTime() ?? Infinity) + 5,
      );
      if (!e) {
        unattributed++;
        continue;
      }
      const got = hitsOf.get(e.fire_key);
      if (got) got.push(t);
      else hitsOf.set(e.fire_key, [t]);
    }
  }
  return { hitsOf, unattributed };
}

/** When the run's setup steps ended. */
export interface Timings {
  started: number;
  createStart: number;
  created: number;
  ready: number;
  observedUntil: number;
}

/** What the store and the target hold of the run: the executions, the hits attributed to them, the duplicates. */
interface Stored {
  all: Exec[];
  idToIndex: Map<string, number>;
  hitsOf: Map<string, number[]>;
  unattributed: number;
  dupExecutions: number;
}

/** Prints the figures per fire minute of the window, then over the whole window; returns the fires' start lags. */
function printFireFigures(w: FireWindow, at: Timings, { all, idToIndex, hitsOf, unattributed, dupExecutions }: Stored) {
  const { t0, window, tLast, windowEnd } = w;
  const { started, createStart, created, ready, observedUntil } = at;
  const perMinute: string[] = [];
  const startLag: number[] = [];
  const triggerLag: number[] = [];
  const hitLag: number[] = [];
  let handled = 0;
  let ran = 0;
  let skipped = 0;
  let failed = 0;
  let missingExec = 0;
  let noHit = 0;
  let dupHits = 0;
  let lastFinish = 0;
  let lastTrigger = 0;
  for (const m of window) {
    const inMinute = all.filter((e) => e.scheduled_for?.getTime() === m);
    const seen = new Set(inMinute.map((e) => e.schedule_id));
    const missing = N - [...idToIndex.keys()].filter((id) => seen.has(id)).length;
    missingExec += missing;
    const lags: number[] = [];
    let minuteNoHit = 0;
    for (const e of inMinute) {
      handled++;
      triggerLag.push(e.triggered_at.getTime() - m);
      lastTrigger = Math.max(lastTrigger, e.triggered_at.getTime());
      if (e.status === 'skipped') skipped++;
      if (e.status === 'failed') failed++;
      if (e.started_at) {
        ran++;
        lags.push(e.started_at.getTime() - m);
      }
      if (e.finished_at) lastFinish = Math.max(lastFinish, e.finished_at.getTime());
      const h = hitsOf.get(e.fire_key) ?? [];
      if (h.length === 0 && e.status !== 'skipped') minuteNoHit++;
      if (h.length > 1) dupHits += h.length - 1;
      if (h[0] !== undefined) hitLag.push(Math.min(...h) - m);
    }
    noHit += minuteNoHit + missing;
    startLag.push(...lags);
    perMinute.push(
      `  ${iso(m)}  executions ${String(inMinute.length).padStart(6)}/${N}  no execution ${String(missing).padStart(5)}  start lag ${lagLine(lags)}`,
    );
  }
  const expected = N * MINUTES;
  out('');
  out(`bench/cron N=${N}: per fire minute`);
  for (const l of perMinute) out(l);
  out(
    `figures (N=${N}, ${MINUTES} fire minutes = ${expected} expected fires, ${WORKERS} worker${WORKERS === 1 ? '' : 's'}):`,
  );
  out(
    `  fires handled (executions)        ${handled}/${expected}  (ran ${ran}, skipped by overlap ${skipped}, failed ${failed})`,
  );
  out(`  start lag  started_at − fire time  ${lagLine(startLag)}`);
  out(`  fire lag   triggered_at − fire time ${lagLine(triggerLag)}`);
  out(`  hit lag    target arrival − fire   ${lagLine(hitLag)}`);
  out(
    `  duplicates executions per fire_key>1: ${dupExecutions} (all ${all.length} executions); extra hits per fire at the target: ${dupHits}; hits matching no execution: ${unattributed}`,
  );
  out(
    `  misses     fires with no execution: ${missingExec}; fires with no hit at the target: ${noHit} (by ${iso(observedUntil)}, ${s1(observedUntil - windowEnd)} s after the window)`,
  );
  const rate = (count: number, until: number) => (until > t0 ? `${((count * 1000) / (until - t0)).toFixed(1)}/s` : '—');
  out(
    `  throughput required ${(N / 60).toFixed(1)} fires/s; window's executions created at ${rate(handled, lastTrigger)} (last ${lastTrigger ? iso(lastTrigger) : '—'}), ` +
      `runs started at ${rate(ran, lastFinish)} (last finished ${lastFinish ? iso(lastFinish) : '—'}, ${lastFinish ? s1(lastFinish - tLast) : '—'} s after the last fire time)`,
  );
  out(
    `  setup: create ${s1(created - createStart)} s, Redis ready ${s1(ready - created)} s later; run total ${s1(Date.now() - started)} s`,
  );
  return startLag;
}

/** Reads what the store and the target hold of the run and prints its figures; returns the fires' start lags. */
export async function reportFigures({ dbs, target }: CronStack, w: FireWindow, at: Timings): Promise<number[]> {
  const { idToIndex, all } = await readExecutions(dbs);
  const byKey = new Map<string, number>();
  for (const e of all) byKey.set(e.fire_key, (byKey.get(e.fire_key) ?? 0) + 1);
  const dupExecutions = [...byKey.values()].filter((c) => c > 1).reduce((a, c) => a + c - 1, 0);
  const { hitsOf, unattributed } = attributeHits(all, idToIndex, target);
  return printFireFigures(w, at, { all, idToIndex, hitsOf, unattributed, dupExecutions });
}

/** What the services logged at warn or above, grouped by message. */
export function printServiceLogs(procs: ServiceProcess[]): void {
  for (const [name, p] of procs.map((p, i) => [i === 0 ? 'scheduler' : `worker ${i}`, p] as const)) {
    const msgs = new Map<string, number>();
    for (const line of (p?.output() ?? '').split('\n').filter(Boolean)) {
      let msg = line.slice(0, 160);
      try {
        const j = JSON.parse(line) as { message?: string; level?: string; err?: unknown };
        if (j.level === 'info' || j.level === 'http' || j.level === 'debug') continue;
        msg = `${j.level ?? ''} ${j.message ?? line.slice(0, 160)}${j.err ? ` (${String(j.err).slice(0, 120)})` : ''}`;
      } catch {
        /* not JSON */
      }
      msgs.set(msg, (msgs.get(msg) ?? 0) + 1);
    }
    if (msgs.size) out(`  ${name} logged (last 64 KiB): ${[...msgs].map(([m, c]) => `${c}× ${m}`).join('; ')}`);
  }
}

/** The machine's CPU per fire over the window's bursts, then the floor beside it. */
export async function reportBurstsAndFloor(burst: Bursts, startLag: number[], dbs: TestDatabases): Promise<void> {
  // The floor in the same run, services stopped: N items due at once, stored in batches, each claimed and finished
  // by the driver and BullMQ alone (bench/trigger/floor-cron.ts). CRON_BENCH_FLOOR=0 skips it. Like ours, it runs
  // WARMUP_MINUTES rounds unmeasured, then one round per window minute, its lags pooled as ours are.
  const items = N * burst.minutes;
  out(
    `  machine CPU, the ${burst.minutes} minutes' bursts: ${s1(burst.ms)} s over ${s1(burst.seconds * 1000)} s${burst.complete ? '' : ' (incomplete)'}, ${(burst.ms / items).toFixed(1)} ms per fire and its run`,
  );
  const perFire = new Map([...burst.byProcess].map(([k, ms]) => [k, ms / items]));
  const oursNode = (perFire.get('scheduler') ?? 0) + (perFire.get('workers') ?? 0);
  out(
    `  CPU per fire and its run, the ${burst.minutes} minutes' bursts: ${[...perFire].map(([k, ms]) => `${k} ${ms.toFixed(2)} ms`).join(', ')}; scheduler + workers ${oursNode.toFixed(2)} ms`,
  );
  const p99 = pct(
    [...startLag].sort((a, b) => a - b),
    99,
  );
  if (process.env.CRON_BENCH_FLOOR === '0')
    recordPass({ bench: `cron ${N} schedules, ${WORKERS} worker(s)`, stored: PRESEED, figures: { p99_lag_ms: p99 } });
  else {
    const rounds = await cronFloor(
      dbs.conn,
      testInfra.redisUrl,
      Array.from({ length: WARMUP_MINUTES + burst.minutes }, () => N),
      Number(WORKER_CONCURRENCY),
    );
    const floor = pooledCronFloor(rounds.slice(WARMUP_MINUTES));
    recordPass({
      bench: `cron ${N} schedules, ${WORKERS} worker(s)`,
      stored: PRESEED,
      figures: { p99_lag_ms: p99, floor_p99_lag_ms: floor.startP99 },
    });
    for (const r of rounds.slice(WARMUP_MINUTES)) out(`  ${cronFloorLine(r)}`);
    out(
      `  floor cron, its ${burst.minutes} rounds after ${WARMUP_MINUTES} unmeasured: start lag p50 ${floor.startP50.toFixed(0)} ms, p99 ${floor.startP99.toFixed(0)} ms (n=${floor.n})`,
    );
    const floorNode = floor.byProcess.get('node') ?? NaN;
    out(
      `  CPU per fire vs floor: our processes ${oursNode.toFixed(2)} ms against the floor process's ${floorNode.toFixed(2)} ms per item: ${(oursNode / floorNode).toFixed(2)}× (target ≤ 2×)`,
    );
    out(
      `  start lag vs floor: p99 ${s1(p99)} s against the floor's ${s1(floor.startP99)} s: ours is ${(p99 / floor.startP99).toFixed(2)}× the floor's (target ≤ 1.25×)`,
    );
  }
}
