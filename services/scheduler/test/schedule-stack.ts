import { Registry } from 'prom-client';
import request from 'supertest';

import { createOutboundClient } from '@platform/outbound';
import { workerConnection, type Job } from '@platform/queue';
import {
  createExecutionRepository,
  createReconciler,
  createScheduleRepository,
  type ExecutionRecord,
  type FireJob,
} from '@platform/scheduling';
import { captureLogger, startLocalServer, testInfra, type LocalHandler, type LocalServer } from '@platform/testing';

import { createWorkerRuntime, type WorkerRuntime } from '../../worker/src/runtime';
import { startSchedulerApp, type SchedulerTestApp, type StartOptions } from './helpers';

export interface WorkerHandle {
  runtime: WorkerRuntime;
  close(): Promise<void>;
}

export interface ScheduleStack {
  t: SchedulerTestApp;
  key: string;
  /** Log lines of the in-process workers. */
  workerLines: string[];
  /** The user's endpoint that HTTP schedules call (outside the product; allow-listed for the workers). */
  target: LocalServer;
  setTarget(handler: LocalHandler): void;
  /** A worker (all three consumers) in this process, on the app's database, queues and clock. */
  startWorker(): Promise<WorkerHandle>;
  /** A reconciler as the scheduler's main runs it. */
  reconcile(): ReturnType<ReturnType<typeof createReconciler>>;
  /** Creates an HTTP schedule calling the target; its id. */
  createHttp(body?: Record<string, unknown>): Promise<string>;
  /** The delayed fire job Redis holds for a schedule (the next fire), if any. */
  nextFireJob(scheduleId: string): Promise<Job<FireJob> | undefined>;
  /** Makes the next fire of a schedule due now (promotes its delayed job); its fire time. */
  fireNow(scheduleId: string): Promise<number>;
  executionsOf(scheduleId: string): Promise<ExecutionRecord[]>;
  /** Polls until `n` executions of the schedule exist and have ended. */
  waitEnded(scheduleId: string, n: number, timeoutMs?: number): Promise<ExecutionRecord[]>;
  close(): Promise<void>;
}

const fireMsOf = (job: Job<FireJob>) => Number(String(job.id).split(':')[2]);

/**
 * Cron schedules on real parts: the scheduler app (in process, its clock movable), BullMQ on real Redis with the
 * app's queue prefix, real FerretDB, and workers running the real consumers in process so they share the clock.
 * Only the user's HTTP endpoint is a local stand-in.
 */
export async function startScheduleStack(opts: StartOptions = {}): Promise<ScheduleStack> {
  const t = await startSchedulerApp(opts);
  const key = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  let handler: LocalHandler = (_req, res) => res.end('ok');
  const target = await startLocalServer((req, res) => handler(req, res));
  const workers: WorkerHandle[] = [];
  const executions = createExecutionRepository(t.dbs.conn);
  const { logger, lines } = captureLogger('worker');

  const stack: ScheduleStack = {
    t,
    key,
    workerLines: lines,
    target,
    setTarget: (h) => {
      handler = h;
    },
    async startWorker() {
      const redis = workerConnection(opts.redisUrl ?? testInfra.redisUrl);
      redis.on('error', () => undefined);
      const outbound = createOutboundClient({ allowHosts: `127.0.0.1:${target.port}` });
      const runtime = await createWorkerRuntime({
        config: {
          QUEUE_PREFIX: t.prefix,
          AGENT_SERVICE_URL: t.agentServiceUrl,
          INTERNAL_SERVICE_SECRET: 'x'.repeat(32),
          AGENT_RUN_TIMEOUT_MS: 10_000,
          WORKER_CONCURRENCY: 4,
          AGENT_RUN_CONCURRENCY: 4,
          JOB_LOCK_MS: 30_000,
          STALLED_INTERVAL_MS: 30_000,
          LIVENESS_STALE_MS: 30_000,
          HTTP_MAX_RESPONSE_BYTES: 5 * 1024 * 1024,
          FIRE_CONCURRENCY: 8,
          ENQUEUE_TIMEOUT_MS: 2_000,
          STORE_RETRY_BASE_MS: 200,
          STORE_RETRY_MAX_MS: 2_000,
        },
        db: t.dbs.conn,
        redis,
        registry: new Registry(),
        logger,
        outbound,
        box: t.scheduleBox,
        clock: t.now,
      });
      const handle = {
        runtime,
        async close() {
          await runtime.consumers.close();
          await runtime.flush();
          await Promise.all(runtime.queuesToClose.map((q) => q.close()));
          outbound.close();
          redis.disconnect();
        },
      };
      workers.push(handle);
      return handle;
    },
    reconcile: () =>
      createReconciler({
        schedules: createScheduleRepository(t.dbs.conn),
        executions,
        queue: t.queues.fires,
        clock: t.now,
        logger,
        catchUpMs: 300_000,
        enqueueTimeoutMs: 2_000,
      })(),
    async createHttp(body = {}) {
      const res = await request(t.app)
        .post('/http-schedules/')
        .set('x-api-key', key)
        .send({ name: 'ping', url: `${target.url}/hook`, cron_expression: '*/5 * * * *', ...body });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
      return res.body.id as string;
    },
    async nextFireJob(scheduleId) {
      const delayed = await t.queues.fires.getDelayed();
      return delayed.find((j) => String(j.id).startsWith(`repeat:${scheduleId}:`));
    },
    async fireNow(scheduleId) {
      const job = await stack.nextFireJob(scheduleId);
      if (!job) throw new Error(`no delayed fire for ${scheduleId}`);
      await job.promote();
      return fireMsOf(job);
    },
    async executionsOf(scheduleId) {
      const { items } = await executions.list(
        { user_id: 'alice', org_id: 'acme' },
        { schedule_id: scheduleId, skip: 0, limit: 100 },
      );
      return items.sort((a, b) => a.triggered_at.localeCompare(b.triggered_at));
    },
    async waitEnded(scheduleId, n, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const list = await stack.executionsOf(scheduleId);
        if (list.length >= n && list.every((e) => ['succeeded', 'failed', 'skipped'].includes(e.status))) return list;
        if (Date.now() > deadline)
          throw new Error(`executions of ${scheduleId}: ${JSON.stringify(list.map((e) => e.status))}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await target.close();
      await t.close();
    },
  };
  return stack;
}
