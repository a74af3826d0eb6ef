/**
 * Cron schedules at scale: N HTTP schedules firing every minute (`* * * * *`), against the real scheduler process
 * (API, reconciler into Redis) and two real worker processes, on a fresh database and queue prefix. A local target
 * server (outside the product) answers 200 at once and records every hit (schedule, arrival time). Over a window
 * of whole fire minutes it reports, per fire (schedule × minute): whether an execution exists and was run, the
 * start lag against the nominal fire time, duplicates (executions per fire key, hits at the target per fire) and
 * misses, and the throughput sustained. Drops its databases, obliterates its queues and stops its processes.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';

import { createQueue, QUEUE_NAMES, workerConnection, type Queue } from '@platform/queue';
import { createScheduleRepository, type NewSchedule } from '@platform/scheduling';
import {
  createTestDatabases,
  startServiceProcess,
  testInfra,
  uniqueName,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { machineBusyMs, recordPass } from '../kit/bench-kit';
import { preseedExecutions } from '../kit/executions';
import { cpuGroups, spent, storeRules } from '../kit/proc-cpu';
import { deletePrefix } from '../kit/redis-prefix';
import { cronFloor, cronFloorLine } from '../trigger/floor';

const N = Number(process.env.CRON_BENCH_N ?? 1_000);
const MINUTES = Number(process.env.CRON_BENCH_MINUTES ?? 3);
/** After the last window fire's minute is over, how long fires of the window may still complete. */
const GRACE_MS = Number(process.env.CRON_BENCH_GRACE_S ?? 120) * 1000;
/** api: every schedule through POST /http-schedules/; repo: straight into the collection; auto: api for the
 * first CRON_BENCH_API_SAMPLE, then repo when the API's rate would take longer than CRON_BENCH_API_BUDGET_S. */
const CREATE = process.env.CRON_BENCH_CREATE ?? 'auto';
const API_SAMPLE = Number(process.env.CRON_BENCH_API_SAMPLE ?? 1_000);
const API_BUDGET_S = Number(process.env.CRON_BENCH_API_BUDGET_S ?? 120);
const CREATE_CONCURRENCY = Number(process.env.CRON_BENCH_CREATE_CONCURRENCY ?? 8);
const RECONCILE_INTERVAL_MS = process.env.CRON_BENCH_RECONCILE_MS ?? '30000'; // the product default
const FIRE_CONCURRENCY = process.env.CRON_BENCH_FIRE_CONCURRENCY ?? '128'; // the product default
const WORKER_CONCURRENCY = process.env.CRON_BENCH_WORKER_CONCURRENCY ?? '64'; // the product default
const WORKERS = Number(process.env.CRON_BENCH_WORKERS ?? 2);
/** Executions of other schedules stored before the run: fires and runs on a store in use. */
const PRESEED = Number(process.env.CRON_BENCH_PRESEED ?? 100_000);
const MIN = 60_000;
const OWNER = { user_id: 'bench-cron', org_id: 'bench-cron' };
const ROOT = resolve(__dirname, '../../../..'); // from bench/dist/bench/cron
const entry = (service: string) => resolve(ROOT, `services/${service}/dist/main.js`);
const out = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const iso = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const s1 = (ms: number) => (ms / 1000).toFixed(1);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
function lagLine(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const f = (n: number) => (Number.isNaN(n) ? '—' : n >= 10_000 ? `${s1(n)} s` : `${n.toFixed(0)} ms`);
  return `p50 ${f(pct(s, 50))}, p99 ${f(pct(s, 99))}, max ${f(s.at(-1) ?? NaN)} (n=${s.length})`;
}

/** The stand-in for the endpoints the schedules call: 200 at once, every hit recorded by schedule index. */
interface Target {
  url: string;
  port: number;
  hits: Map<number, number[]>;
  total: number;
  close(): Promise<void>;
}
async function startTarget(): Promise<Target> {
  const self: Target = { url: '', port: 0, hits: new Map(), total: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const i = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('s'));
    const list = self.hits.get(i);
    if (list) list.push(at);
    else self.hits.set(i, [at]);
    self.total++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  self.port = typeof addr === 'object' && addr ? addr.port : 0;
  self.url = `http://127.0.0.1:${self.port}`;
  self.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return self;
}

/** Runs `count` tasks by `concurrency` loops; returns seconds taken. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
  return (performance.now() - t) / 1000;
}

interface Exec {
  schedule_id: string;
  fire_key: string;
  status: string;
  scheduled_for: Date | null;
  triggered_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
/** Stops processes, obliterates the queues, drops the databases: once, whatever happened. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of cleanups.reverse())
      await c().catch((err: unknown) => process.stderr.write(`cleanup: ${(err as Error).message}\n`));
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    process.stderr.write(`bench/cron: ${sig}, cleaning up\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const dbs: TestDatabases = await createTestDatabases('bench_cron');
  cleanups.push(() => dbs.cleanup());
  if (PRESEED > 0) {
    const t = Date.now();
    const stored = await preseedExecutions(dbs.conn.collection('executions'), PRESEED);
    out(`preseeded ${stored.toLocaleString('en')} executions in ${s1(Date.now() - t)} s`);
  }
  const prefix = uniqueName('benchcron');
  const redis = workerConnection(testInfra.redisUrl);
  const queues: Queue[] = Object.values(QUEUE_NAMES).map((name) => createQueue(name, redis, {}, prefix));
  const fires = queues[Object.values(QUEUE_NAMES).indexOf(QUEUE_NAMES.scheduleFires)] as Queue;
  const httpCalls = queues[Object.values(QUEUE_NAMES).indexOf(QUEUE_NAMES.httpCalls)] as Queue;
  cleanups.push(async () => {
    for (const q of queues) await q.obliterate({ force: true }).catch(() => undefined);
    for (const q of queues) await q.close();
    // Whatever obliterate left (job scheduler keys, metadata) under this run's own prefix.
    await deletePrefix(redis, prefix);
    await redis.quit();
  });
  const target = await startTarget();
  cleanups.push(() => target.close());

  const procs: ServiceProcess[] = [];
  cleanups.push(() => Promise.all(procs.map((p) => p.stop(10_000))));
  const scheduleKey = randomBytes(32).toString('hex');
  const common = {
    MONGODB_URI: testInfra.mongoUri,
    MONGODB_DB: dbs.conn.name,
    REDIS_URL: testInfra.redisUrl,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'info', // as `pnpm start` runs them
    SCHEDULE_SECRET_ENCRYPTION_KEY: scheduleKey,
    AGENT_SERVICE_URL: 'http://127.0.0.1:9',
  };
  const scheduler = await startServiceProcess({
    script: entry('scheduler'),
    env: {
      ...common,
      AUTH_DB: dbs.authDb,
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      RECONCILE_INTERVAL_MS,
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}`, // the worker's: the schedules name the target's address
    },
  });
  procs.push(scheduler);
  const internal = randomBytes(32).toString('hex');
  for (let w = 0; w < WORKERS; w++) {
    procs.push(
      await startServiceProcess({
        script: entry('worker'),
        env: {
          ...common,
          INTERNAL_SERVICE_SECRET: internal,
          OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}`,
          FIRE_CONCURRENCY,
          WORKER_CONCURRENCY,
        },
      }),
    );
  }
  out(
    `bench/cron: N=${N} HTTP schedules '* * * * *', ${MINUTES} fire minutes observed; 1 scheduler + ${WORKERS} workers ` +
      `(FIRE_CONCURRENCY ${FIRE_CONCURRENCY}, WORKER_CONCURRENCY ${WORKER_CONCURRENCY}), RECONCILE_INTERVAL_MS ${RECONCILE_INTERVAL_MS}; ` +
      `${cpus().length} CPUs, FerretDB + Redis local`,
  );

  // --- create the schedules
  const key = await dbs.mintKey(OWNER);
  const bodyOf = (i: number) => ({
    name: `cron-${i}`,
    url: `${target.url}/hit?s=${i}`,
    method: 'GET',
    cron_expression: '* * * * *',
    timezone: 'UTC',
  });
  const viaApi = async (i: number) => {
    const res = await fetch(`${scheduler.url}/http-schedules/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(bodyOf(i)),
    });
    if (res.status !== 201) throw new Error(`POST /http-schedules/ → ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const repo = createScheduleRepository(dbs.conn);
  const viaRepo = async (i: number) => {
    const b = bodyOf(i);
    const fields: NewSchedule = {
      kind: 'http',
      agent_id: null,
      message: '',
      http: { name: b.name, url: b.url, method: 'GET', headers_sealed: {}, query: {}, body: null, timeout_ms: 10_000 },
      cron_expression: b.cron_expression,
      timezone: b.timezone,
      max_retries: 3,
      retry_delay: 60,
      overlap_policy: 'skip',
      is_active: true,
    };
    await repo.create(OWNER, fields, new Date());
  };
  const createStart = Date.now();
  const apiCount = CREATE === 'repo' ? 0 : CREATE === 'api' ? N : Math.min(N, API_SAMPLE);
  const apiSeconds = apiCount ? await pool(apiCount, CREATE_CONCURRENCY, viaApi) : 0;
  const apiRate = apiCount / apiSeconds;
  const rest = N - apiCount;
  let restApi = false;
  if (rest > 0 && CREATE === 'auto' && rest / apiRate <= API_BUDGET_S) restApi = true;
  const restSeconds =
    rest > 0 ? await pool(rest, CREATE_CONCURRENCY, (i) => (restApi ? viaApi : viaRepo)(apiCount + i)) : 0;
  const created = Date.now();
  if (apiCount) {
    out(
      `created ${apiCount} through POST /http-schedules/ (concurrency ${CREATE_CONCURRENCY}) in ${apiSeconds.toFixed(1)} s: ${apiRate.toFixed(0)}/s` +
        (N > apiCount ? ` (10,000 would take ~${(10_000 / apiRate).toFixed(0)} s)` : ''),
    );
  }
  if (rest > 0)
    out(
      `created ${rest} ${restApi ? 'through the API' : 'with the schedule repository (same collection; Redis left to the reconciler)'} in ${restSeconds.toFixed(1)} s: ${(rest / restSeconds).toFixed(0)}/s`,
    );

  // --- wait until Redis has a job scheduler for every schedule
  let inRedis = 0;
  const redisDeadline = Date.now() + 15 * MIN;
  while ((inRedis = await fires.getJobSchedulersCount()) < N) {
    if (Date.now() > redisDeadline) throw new Error(`only ${inRedis}/${N} job schedulers in Redis after 15 min`);
    await sleep(250);
  }
  const ready = Date.now();
  out(
    `all ${N} job schedulers in Redis ${s1(ready - created)} s after the last insert (${s1(ready - createStart)} s after the first)`,
  );

  // --- the window: whole fire minutes, starting at the first minute boundary with every scheduler in place
  const t0 = Math.ceil((ready + 1_000) / MIN) * MIN;
  const window = Array.from({ length: MINUTES }, (_, k) => t0 + k * MIN);
  const tLast = window.at(-1) as number;
  const windowEnd = tLast + MIN;
  const deadline = windowEnd + GRACE_MS;
  out(
    `window: fires at ${window.map(iso).join(', ')} UTC (expected ${N * MINUTES} fires); grace until ${iso(deadline)}`,
  );

  // The machine's CPU spent on each fire minute's burst, summed over the window's minutes (one minute alone swung by
  // ±15 % between runs): from just before a minute's fires fall due until its last call arrives at the target, or the
  // next minute begins (every process counted: services, FerretDB, PostgreSQL, Redis, this bench). Each process's
  // share too (/proc/<pid>/stat): the scheduler, the workers and the stores.
  const cpu = cpuGroups({
    scheduler: { pids: [scheduler.child.pid!] },
    workers: { pids: procs.slice(1).map((p) => p.child.pid!) },
    ...storeRules(Number(new URL(testInfra.mongoUri).port || 27017), Number(new URL(testInfra.redisUrl).port || 6379)),
  });
  const burstCpu = (async () => {
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
  })();

  // Timeline: every 15 s, hits at the target since the last line and the queues' depth.
  const executions = dbs.conn.collection<Exec>('executions');
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
  // Stop the services first so that FerretDB answers the reads below (runs in progress finish within the grace).
  await Promise.all(procs.map((p) => p.stop(10_000)));

  // --- figures
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
  const byKey = new Map<string, number>();
  for (const e of all) byKey.set(e.fire_key, (byKey.get(e.fire_key) ?? 0) + 1);
  const dupExecutions = [...byKey.values()].filter((c) => c > 1).reduce((a, c) => a + c - 1, 0);

  // Each hit belongs to the execution of its schedule that was running when it arrived (same machine clock).
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

  // What the services logged at warn or above, grouped by message.
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

  // The floor in the same run, services stopped: N items due at once, stored in batches, each claimed and finished
  // by the driver and BullMQ alone (bench/trigger/floor.ts). CRON_BENCH_FLOOR=0 skips it.
  const burst = await burstCpu;
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
    const [floor] = await cronFloor(dbs.conn, testInfra.redisUrl, [N], Number(WORKER_CONCURRENCY));
    recordPass({
      bench: `cron ${N} schedules, ${WORKERS} worker(s)`,
      stored: PRESEED,
      figures: { p99_lag_ms: p99, floor_p99_lag_ms: floor!.startP99 },
    });
    out(`  ${cronFloorLine(floor!)}`);
    const floorNode = floor!.byProcess.get('node') ?? NaN;
    out(
      `  CPU per fire vs floor: our processes ${oursNode.toFixed(2)} ms against the floor process's ${floorNode.toFixed(2)} ms per item: ${(oursNode / floorNode).toFixed(2)}× (target ≤ 2×)`,
    );
    out(
      `  start lag vs floor: p99 ${s1(p99)} s against the floor's ${s1(floor!.startP99)} s: ours is ${(p99 / floor!.startP99).toFixed(2)}× the floor's (target ≤ 1.25×)`,
    );
  }
}

main()
  .then(
    () => 0,
    (err: unknown) => {
      process.stderr.write(`bench/cron failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      return 1;
    },
  )
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  });
