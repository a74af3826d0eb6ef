import { connectMongo, type Connection, type mongoose } from '@platform/db';
import { monitorRedis, privateRedis, testInfra, type PrivateRedis, type RedisMonitor } from '@platform/testing';
import { addFire, createExecutionRepository, nextFire, type ExecutionRepository } from '@platform/scheduling';
import { eventually, startWorkerStack, type WorkerStack } from './worker-stack';

/**
 * The work of one completed run and of one cron fire, counted on the real runtime: database commands (the driver's
 * command monitoring on the worker's connection) and Redis commands (MONITOR on a Redis of this file's own; commands
 * inside BullMQ's Lua scripts are not round trips and are left out). The jobs are queued while the consumers are
 * paused and counting starts when they resume, so only the worker's own work is counted; the test reads progress
 * through a connection of its own.
 *
 * Budgets (per run or fire, steady state, FerretDB), from what each step must do:
 * - run, database: claim and finish are one atomic update each, 4 commands on FerretDB (read, revision claim,
 *   write, claim release; 1 `findOneAndUpdate` on MongoDB) → 8; the webhook's statistics are coalesced (at most one
 *   write a second per webhook, 4 commands) → a fraction. Budget 10.
 * - run, Redis: take the job and finish it (BullMQ's moveToActive and moveToFinished scripts; the next job comes back
 *   with the finish) plus the blocking wait between bursts → budget 4.
 * - fire, database: read the schedule, insert the execution (its one write), advance the schedule (one atomic
 *   update, 4 commands on FerretDB) → budget 8.
 * - fire, Redis: take and finish the fire job, add the run job, and the next fire's job → budget 6.
 */
const N = 20;
const RUN_BUDGET = { db: 10, redis: 4 };
const FIRE_BUDGET = { db: 8, redis: 6 };

let redisServer: PrivateRedis;
let s: WorkerStack;
let reader: Connection;
let executions: ExecutionRepository;
let redisMonitor: RedisMonitor;
const dbCommands: string[] = [];

beforeAll(async () => {
  redisServer = await privateRedis();
  await redisServer.start();
  s = await startWorkerStack({ redisUrl: redisServer.url, monitorCommands: true });
  s.dbs.conn.getClient().on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => dbCommands.push(`${e.commandName} ${String(e.command[e.commandName])}`));
  reader = await connectMongo({ uri: testInfra.mongoUri, dbName: s.dbs.conn.name });
  executions = createExecutionRepository(reader);
  redisMonitor = await monitorRedis(redisServer.url);
}, 60_000);
afterAll(async () => {
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

const ended = (ids: string[]) =>
  eventually(`${ids.length} runs to end`, async () => {
    const all = await Promise.all(ids.map((id) => executions.get(id)));
    return all.every((e) => e && ['succeeded', 'failed'].includes(e.status)) ? all : undefined;
  });

it(`a completed run costs at most ${RUN_BUDGET.db} database and ${RUN_BUDGET.redis} Redis commands`, async () => {
  await ended([(await s.triggerWebhookRun({ payload: 'warm-up' })).id]); // connections and scripts loaded
  await pauseAll();
  const ids: string[] = [];
  for (let i = 0; i < N; i++) ids.push((await s.triggerWebhookRun({ payload: `run ${i}` })).id);

  const work = await counted(() => workers().forEach((w) => w.resume()), async () => {
    const runs = await ended(ids);
    expect(runs.every((r) => r!.status === 'succeeded')).toBe(true);
  });
  const db = work.db.length / N;
  const redis = work.redis.length / N;
  process.stdout.write(`per run: ${db.toFixed(2)} database commands, ${redis.toFixed(2)} Redis commands\n`);
  expect(db).toBeGreaterThan(0);
  expect(db).toBeLessThanOrEqual(RUN_BUDGET.db);
  expect(redis).toBeLessThanOrEqual(RUN_BUDGET.redis);
});

it(`a cron fire costs at most ${FIRE_BUDGET.db} database and ${FIRE_BUDGET.redis} Redis commands`, async () => {
  const cron = '15 9 * * *';
  const schedules: Awaited<ReturnType<WorkerStack["createAgentSchedule"]>>[] = [];
  for (let i = 0; i < N; i++) schedules.push(await s.createAgentSchedule(`report ${i}`, '21', { cron_expression: cron, timezone: 'UTC' }));
  const warm = await s.createAgentSchedule('warm-up', '21', { cron_expression: cron, timezone: 'UTC' });
  const firstFire = nextFire(cron, 'UTC', Date.now())!;
  await addFire(s.fires, warm.id, firstFire, 2_000);
  await eventually('the warm-up fire', async () => ((await s.executionsOf(warm.id)).length === 1 ? true : undefined));

  await pauseAll();
  for (const sc of schedules) await addFire(s.fires, sc.id, firstFire, 2_000);
  const work = await counted(() => workerOf('schedule-fires').resume(), () =>
    eventually(`${N} fires to become executions`, async () => {
      const made = await Promise.all(schedules.map(async (sc) => (await executions.list({ user_id: sc.user_id, org_id: sc.org_id }, { schedule_id: sc.id, skip: 0, limit: 5 })).total));
      return made.every((n) => n === 1) ? true : undefined;
    }),
  );
  workers().forEach((w) => w.resume());
  const db = work.db.length / N;
  const redis = work.redis.length / N;
  process.stdout.write(`per fire: ${db.toFixed(2)} database commands, ${redis.toFixed(2)} Redis commands\n`);
  expect(db).toBeGreaterThan(0);
  expect(db).toBeLessThanOrEqual(FIRE_BUDGET.db);
  expect(redis).toBeLessThanOrEqual(FIRE_BUDGET.redis);
});
