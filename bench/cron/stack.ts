/**
 * The cron benchmark's stack: its fresh database (executions of other schedules stored first), the queues under a
 * prefix of its own, the target the schedules call, one scheduler process and the worker processes. Each part's
 * clean-up is pushed as it is made.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { cpus } from 'node:os';

import { syncIndexes } from '@platform/db';
import { createQueue, QUEUE_NAMES, workerConnection, type Queue } from '@platform/queue';
import { executionModel } from '@platform/scheduling';
import { startServiceProcess, testInfra, uniqueName, type ServiceProcess, type TestDatabases } from '@platform/testing';

import { out } from '../kit/bench-kit';
import { preseedExecutions } from '../kit/executions';
import { deletePrefix } from '../kit/redis-prefix';
import {
  entry,
  FIRE_CONCURRENCY,
  MINUTES,
  N,
  PRESEED,
  RECONCILE_INTERVAL_MS,
  s1,
  WORKER_CONCURRENCY,
  WORKERS,
} from './common';

/** The stand-in for the endpoints the schedules call: 200 at once, every hit recorded by schedule index. */
export interface Target {
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

export interface CronStack {
  dbs: TestDatabases;
  fires: Queue;
  httpCalls: Queue;
  target: Target;
  scheduler: ServiceProcess;
  /** The scheduler, then the workers. */
  procs: ServiceProcess[];
}

/**
 * Starts the stack on `dbs` and prints its settings; each part's clean-up is pushed onto `cleanups` as it is made.
 */
export async function startCronStack(dbs: TestDatabases, cleanups: (() => Promise<unknown>)[]): Promise<CronStack> {
  // The executions' model on the bench's own connection, so that its reads (the window's count over 100,000 stored
  // executions) are served as the services' are, and its collection and indexes made before anything writes to it.
  executionModel(dbs.conn);
  await syncIndexes(dbs.conn);
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
  return { dbs, fires, httpCalls, target, scheduler, procs };
}
