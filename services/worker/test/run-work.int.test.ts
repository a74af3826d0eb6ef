import { connectMongo, mongoose, watchServedQueries, type Connection } from '@platform/db';
import {
  addFire,
  createExecutionRepository,
  fireGroupOf,
  nextFire,
  type ExecutionRepository,
  type ScheduleRecord,
} from '@platform/scheduling';
import { monitorRedis, privateRedis, testInfra, type PrivateRedis, type RedisMonitor } from '@platform/testing';

import { eventually, startWorkerStack, type WorkerStack } from './worker-stack';

/**
 * The work of one completed run and of one cron fire, counted on the real runtime: database commands (the driver's
 * command monitoring on the worker's connection) and Redis commands (MONITOR on a Redis of this file's own; commands
 * inside BullMQ's Lua scripts are not round trips and are left out). The jobs are queued while the consumers are
 * paused and counting starts when they resume, so only the worker's own work is counted; the test reads progress
 * through a connection of its own.
 *
 * Budgets (per run or fire, steady state), from what each step must do:
 * - run, database: the claim and the finish are one conditional `findOneAndUpdate` each (the same calls on MongoDB;
 *   on the development store the adapter's locks are PostgreSQL calls, not database commands); the webhook's
 *   statistics are coalesced (one write a second for every webhook together) → a fraction. Budget 2 (below).
 * - run, Redis: take the job and finish it (BullMQ's moveToActive and moveToFinished scripts; the next job comes back
 *   with the finish) plus the blocking wait between bursts → budget 4.
 * - fire, database, with `overlap_policy: skip` (the API's default): read the schedule (MongoDB decides whether the
 *   fire stands; fires of one fire group that come due together share one read, schedule.fire-reader.ts), ask whether
 *   a run of it is unfinished (the fires of a few milliseconds ask together, one query per owner) and the execution's
 *   share of an insert (fires taken together are inserted together, each waiting 10 ms for company) → budget 2; 20
 *   schedules of one rule spread over up to 20 of the rule's 64 groups here, so reads are nearly one per fire in this
 *   test (the fire-reader test counts a rule's 300).
 * - fire, Redis: take and finish the fire job, add the run job, and the next fire's job → budget 6.
 * - an HTTP schedule's fire and its run together (the fire makes the run's first attempt itself, the execution stored
 *   already claimed): database, the fire's as above and the finish, no claim → budget 3; Redis, the fire's without the
 *   run job's add, and no run job to take and finish → budget 6 (an agent schedule's fire and run: 6 + 4).
 */
const N = 20;
/** Runs of the burst whose claims and finishes are counted. */
const BURST = 64;
/**
 * Per run, the claim and the finish (measured 2.00–2.02 alone). The webhook's statistics writes are bounded by time,
 * not by runs: at most one a second per webhook (coalesced), so a loaded machine that runs the burst slowly counts more
 * of them; they are checked against the burst's duration apart.
 */
const RUN_BUDGET = { db: 2.1, redis: 4 };
const STATS_WRITE = 'update webhooks';
const FIRE_BUDGET = { db: 2, redis: 6 };
const HTTP_FIRE_AND_RUN_BUDGET = { db: 3, redis: 6 };
/**
 * The schedules' statistics after their runs: every schedule's in one bulk write, at most one a second (counted in the
 * budgets, and apart to check that bound).
 */
const SCHEDULE_STATS_WRITE = 'update schedules';

let redisServer: PrivateRedis;
let s: WorkerStack;
let reader: Connection;
let executions: ExecutionRepository;
let redisMonitor: RedisMonitor;
const dbCommands: string[] = [];
let stopWatching: (() => void) | undefined;

beforeAll(async () => {
  redisServer = await privateRedis();
  await redisServer.start();
  s = await startWorkerStack({ redisUrl: redisServer.url, monitorCommands: true });
  s.dbs.conn
    .getClient()
    .on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) =>
      dbCommands.push(`${e.commandName} ${String(e.command[e.commandName])}`),
    );
  // Reads the development store's adapter answers from PostgreSQL are commands on MongoDB: counted as well.
  stopWatching = watchServedQueries((q) => {
    if (q.db === s.dbs.conn.name) dbCommands.push(`${q.command} ${q.collection}`);
  });
  // The test's own reads go to the server as they are (no adapter in this process answers them for it).
  reader = await connectMongo({ uri: testInfra.mongoUri, dbName: s.dbs.conn.name, adapter: 'pass-through' });
  executions = createExecutionRepository(reader);
  redisMonitor = await monitorRedis(redisServer.url);
}, 60_000);
afterAll(async () => {
  stopWatching?.();
  await redisMonitor?.close();
  await reader?.close();
  await s?.close();
  await redisServer?.stop();
}, 60_000);

const workers = () => s.runtime.consumers.workers;
const workerOf = (queue: string) => workers().find((w) => w.name === queue)!;
const pauseAll = () => Promise.all(workers().map((w) => w.pause()));

/** Counts what the worker does between `start` and the end of `wait`. */
async function counted(start: () => void, wait: () => Promise<unknown>): Promise<{ db: string[]; redis: string[] }> {
  dbCommands.length = 0;
  redisMonitor.reset();
  start();
  await wait();
  return { db: [...dbCommands], redis: redisMonitor.commands() };
}

/** Commands by name and collection, for the log line. */
const tally = (commands: string[]) =>
  Object.entries(commands.reduce<Record<string, number>>((m, c) => ({ ...m, [c]: (m[c] ?? 0) + 1 }), {}))
    .map(([c, n]) => `${c} ×${n}`)
    .join(', ');

/**
 * Waits for the runs to end, reading their statuses in one query a poll (64 reads a poll, 20 polls a second, were a
 * load of their own on a busy machine) and bounded by a hang detector, not a speed target: a CI machine running
 * other suites beside this one took longer than 15 s for the burst.
 */
const ENDED_WITHIN_MS = 60_000;
const ended = (ids: string[]) =>
  eventually(
    `${ids.length} runs to end`,
    async () => {
      const docs = await reader
        .collection('executions')
        .find({ _id: { $in: ids.map((id) => new mongoose.Types.ObjectId(id)) } }, { projection: { status: 1 } })
        .toArray();
      const done = docs.filter((d) => ['succeeded', 'failed'].includes(String(d.status)));
      return done.length === ids.length ? Promise.all(ids.map((id) => executions.get(id))) : undefined;
    },
    ENDED_WITHIN_MS,
  );

it(
  `a completed run of a burst costs at most ${RUN_BUDGET.db} database and ${RUN_BUDGET.redis} Redis commands, amortised`,
  async () => {
    await ended([(await s.triggerWebhookRun({ payload: 'warm-up' })).id]); // connections and scripts loaded
    await pauseAll();
    // A burst, as concurrent triggers store it: the inserts that arrive together share one insertMany.
    const ids = (
      await Promise.all(Array.from({ length: BURST }, (_, i) => s.triggerWebhookRun({ payload: `run ${i}` })))
    ).map((e) => e.id);

    const startedAt = Date.now();
    const work = await counted(
      () => workers().forEach((w) => w.resume()),
      async () => {
        const runs = await ended(ids);
        expect(runs.every((r) => r!.status === 'succeeded')).toBe(true);
      },
    );
    const seconds = (Date.now() - startedAt) / 1000;
    const statsWrites = work.db.filter((c) => c === STATS_WRITE).length;
    const db = (work.db.length - statsWrites) / BURST;
    const redis = work.redis.length / BURST;
    process.stdout.write(
      `per run: ${db.toFixed(2)} database commands besides ${statsWrites} statistics writes in ${seconds.toFixed(1)} s ` +
        `(${tally(work.db)}), ${redis.toFixed(2)} Redis commands\n`,
    );
    expect(db).toBeGreaterThan(0);
    expect(db).toBeLessThanOrEqual(RUN_BUDGET.db);
    expect(statsWrites).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(redis).toBeLessThanOrEqual(RUN_BUDGET.redis);
  },
  2 * ENDED_WITHIN_MS,
);

/**
 * Counts the work of one fire of each schedule, queued while the consumers are paused, until each has made its
 * execution (`ended`: until the execution has ended).
 */
async function fireRound(schedules: ScheduleRecord[], fireMs: number, round: number, ended = false) {
  await pauseAll();
  for (const sc of schedules)
    await addFire(s.fires, sc.id, fireMs, 2_000, fireGroupOf(sc.id, sc.cron_expression, sc.timezone));
  const startedAt = Date.now();
  const work = await counted(
    () => workerOf('schedule-fires').resume(),
    () =>
      eventually(`${N} fires to become executions`, async () => {
        const made = await Promise.all(
          schedules.map(
            async (sc) =>
              (
                await executions.list(
                  { user_id: sc.user_id, org_id: sc.org_id },
                  { schedule_id: sc.id, skip: 0, limit: 5, ...(ended ? { statuses: ['succeeded' as const] } : {}) },
                )
              ).total,
          ),
        );
        return made.every((n) => n === round) ? true : undefined;
      }),
  );
  const seconds = (Date.now() - startedAt) / 1000;
  workers().forEach((w) => w.resume());
  const statsWrites = work.db.filter((c) => c === SCHEDULE_STATS_WRITE).length;
  return { db: work.db.length / N, statsWrites, seconds, redis: work.redis.length / N, tally: tally(work.db) };
}

it(
  `a cron fire costs at most ${FIRE_BUDGET.db} database and ${FIRE_BUDGET.redis} Redis commands, amortised over a schedule's fires`,
  async () => {
    const cron = '15 9 * * *';
    const schedules: ScheduleRecord[] = [];
    // The API's default overlap policy: each fire asks whether the schedule's previous run has ended.
    const opts = { cron_expression: cron, timezone: 'UTC', overlap_policy: 'skip' as const };
    for (let i = 0; i < N; i++) schedules.push(await s.createAgentSchedule(`report ${i}`, '21', opts));
    const warm = await s.createAgentSchedule('warm-up', '21', opts);
    const firstFire = nextFire(cron, 'UTC', Date.now())!;
    await addFire(s.fires, warm.id, firstFire, 2_000);
    await eventually('the warm-up fire', async () => ((await s.executionsOf(warm.id)).length === 1 ? true : undefined));

    for (const [round, fireMs] of [firstFire, nextFire(cron, 'UTC', firstFire)!].entries()) {
      const work = await fireRound(schedules, fireMs, round + 1);
      process.stdout.write(
        `fire ${round + 1} of each schedule: ${work.db.toFixed(2)} database commands (${work.tally}), ${work.redis.toFixed(2)} Redis commands\n`,
      );
      expect(work.db).toBeGreaterThan(0);
      expect(work.db).toBeLessThanOrEqual(FIRE_BUDGET.db);
      expect(work.redis).toBeLessThanOrEqual(FIRE_BUDGET.redis);
      // The runs end before the next fire, which then runs rather than being recorded as skipped.
      const runs = (await Promise.all(schedules.map((sc) => s.executionsOf(sc.id)))).flat();
      expect(runs.every((r) => r.status !== 'skipped')).toBe(true);
      await ended(runs.map((r) => r.id));
    }
  },
  3 * ENDED_WITHIN_MS,
);

it(
  `an HTTP schedule's cron fire and its run cost at most ${HTTP_FIRE_AND_RUN_BUDGET.db} database and ${HTTP_FIRE_AND_RUN_BUDGET.redis} Redis commands, amortised`,
  async () => {
    const cron = '45 9 * * *';
    const opts = { cron_expression: cron, timezone: 'UTC', overlap_policy: 'skip' as const };
    const schedule = (name: string) => s.createHttpSchedule({ url: `${s.target.url}/${name}`, method: 'GET' }, opts);
    const schedules: ScheduleRecord[] = [];
    for (let i = 0; i < N; i++) schedules.push(await schedule(`tick-${i}`));
    const warm = await schedule('warm-up');
    const firstFire = nextFire(cron, 'UTC', Date.now())!;
    await addFire(s.fires, warm.id, firstFire, 2_000);
    await eventually('the warm-up run', async () =>
      (await s.executionsOf(warm.id))[0]?.status === 'succeeded' ? true : undefined,
    );

    for (const [round, fireMs] of [firstFire, nextFire(cron, 'UTC', firstFire)!].entries()) {
      const work = await fireRound(schedules, fireMs, round + 1, true);
      process.stdout.write(
        `HTTP fire and run ${round + 1} of each schedule: ${work.db.toFixed(2)} database commands, ${work.statsWrites} of them statistics writes in ${work.seconds.toFixed(1)} s (${work.tally}), ${work.redis.toFixed(2)} Redis commands\n`,
      );
      // Every schedule's statistics go in one write (at most one a second), not one write per schedule.
      expect(work.statsWrites).toBeLessThanOrEqual(Math.ceil(work.seconds) + 1);
      expect(work.db).toBeGreaterThan(0);
      expect(work.db).toBeLessThanOrEqual(HTTP_FIRE_AND_RUN_BUDGET.db);
      expect(work.redis).toBeLessThanOrEqual(HTTP_FIRE_AND_RUN_BUDGET.redis);
      // The wait above counted each schedule's succeeded runs: every fire of the round ran, on its first attempt.
      const runs = (await Promise.all(schedules.map((sc) => s.executionsOf(sc.id)))).flat();
      expect(tally(runs.map((r) => `${r.status}@${r.attempt}`))).toBe(`succeeded@1 ×${N * (round + 1)}`);
    }
  },
  3 * ENDED_WITHIN_MS,
);
