import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';

import { syncIndexes } from '@platform/db';
import { createOutboundClient } from '@platform/outbound';
import {
  createQueue,
  producerConnection,
  QUEUE_NAMES,
  within,
  workerConnection,
  type Queue,
  type RedisConnection,
} from '@platform/queue';
import {
  createExecutionRepository,
  createRepeatStrategy,
  createScheduleRepository,
  enqueueRun,
  type AgentRunJob,
  type CallbackJob,
  type CallbackTarget,
  type ExecutionRecord,
  type ExecutionRepository,
  type FireJob,
  type HttpMethod,
  type NewExecution,
  type NewSchedule,
  type RunQueues,
  type ScheduleRecord,
  type ScheduleRepository,
} from '@platform/scheduling';
import { createSecretBox, type SecretBox } from '@platform/secrets';
import {
  captureLogger,
  createTestDatabases,
  eventually,
  startLocalServer,
  testInfra,
  uniqueName,
  type LocalHandler,
  type LocalServer,
  type TestDatabases,
} from '@platform/testing';

import { createWorkerRuntime, type RuntimeConfig, type WorkerRuntime } from '../src/runtime';
import { startDoor, type Door } from './tcp-door';

/** The owner of everything a stack creates. */
export const OWNER = { user_id: 'alice', org_id: 'acme' };

/** The path of the agent service's inference endpoint the worker calls (libs/agent-client runner). */
export const INFERENCE_PATH = '/v3/inference/chat/';

/** First retry delay of runs without a fixed delay (webhook runs), as the scheduler passes to enqueueRun. */
const ENQUEUE = { timeoutMs: 2_000, backoffMs: 100 };

const ENDED = ['succeeded', 'failed', 'skipped'];

export type { Door };

export interface HttpScheduleInput {
  url: string;
  method?: HttpMethod;
  /** Plain header values; stored sealed, as the scheduler stores them. */
  headers?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  timeout_ms?: number;
}

export interface ScheduleOptions {
  cron_expression?: string;
  timezone?: string;
  max_retries?: number;
  retry_delay?: number;
  overlap_policy?: 'skip' | 'allow';
  is_active?: boolean;
  /** When the schedule is created (its `active_since`); real now by default. */
  at?: Date;
  /** Its completion callback (url and sealed secret), stored as the scheduler stores it. */
  callback?: CallbackTarget;
}

export interface WebhookRunInput {
  payload: unknown;
  agent_id?: string | null;
  max_attempts?: number;
  webhook_id?: string;
  /** The webhook's completion callback (url and sealed secret), as the scheduler copies it onto the run. */
  callback?: CallbackTarget | null;
}

export interface StackOptions {
  httpMaxResponseBytes?: number;
  agentRunTimeoutMs?: number;
  /** The agent service the worker calls instead of the stand-in (a real one, for end-to-end tests). */
  agentServiceUrl?: string;
  /** Redis of the queues (a private one, to count the worker's commands); the shared one by default. */
  redisUrl?: string;
  /** Emit the driver's command events on `dbs.conn` (to count the worker's database work). */
  monitorCommands?: boolean;
  /** CALLBACK_RETRY_DELAYS_MS and CALLBACK_TIMEOUT_MS of the worker (its defaults: minutes, 10 s). */
  callbackDelaysMs?: string;
  callbackTimeoutMs?: number;
}

export interface WorkerStack {
  dbs: TestDatabases;
  prefix: string;
  /** The secret the worker presents to the agent service. */
  internalSecret: string;
  /** Seals and opens HTTP schedules' header values (the worker's SCHEDULE_SECRET_ENCRYPTION_KEY). */
  box: SecretBox;
  /** Stand-in of the agent service's internal inference endpoint (outside the worker). */
  agent: LocalServer;
  /** The door the worker reaches the agent service through (shut it to make the agent service unreachable). */
  agentDoor: Door;
  setAgent(handler: LocalHandler): void;
  /** Stand-in of a user's HTTP endpoint, allow-listed for the worker's outbound client. */
  target: LocalServer;
  setTarget(handler: LocalHandler): void;
  executions: ExecutionRepository;
  schedules: ScheduleRepository;
  /** The scheduler's producer queues under this stack's prefix. */
  queues: RunQueues;
  fires: Queue<FireJob>;
  /** The completion callbacks' queue (jobs `cb-<execution id>`). */
  callbacks: Queue<CallbackJob>;
  /** The worker runtime under test (all three consumers). */
  runtime: WorkerRuntime;
  /** The worker's log lines. */
  lines: string[];
  /** Requests the agent stand-in received for one execution (its session id). */
  agentCallsOf(executionId: string): LocalServer['requests'];
  /** Creates an agent schedule as the scheduler stores it. */
  createAgentSchedule(message: string, agentId: string, opts?: ScheduleOptions): Promise<ScheduleRecord>;
  /** Creates an HTTP schedule as the scheduler stores it (header values sealed). */
  createHttpSchedule(input: HttpScheduleInput, opts?: ScheduleOptions): Promise<ScheduleRecord>;
  /** What the scheduler's run-now does: stores an execution of the schedule and puts it on its run queue. */
  runNow(s: ScheduleRecord): Promise<ExecutionRecord>;
  /** What the scheduler's webhook trigger does: stores a webhook execution and puts it on `agent-runs`. */
  triggerWebhookRun(input: WebhookRunInput): Promise<ExecutionRecord>;
  /** Stores an execution without enqueuing it. */
  storeExecution(input: NewExecution): Promise<ExecutionRecord>;
  enqueue(exec: ExecutionRecord, jobId?: string): Promise<string>;
  /** Polls until the execution has ended. */
  waitEnded(id: string, timeoutMs?: number): Promise<ExecutionRecord>;
  /** Polls until a job of a queue is in `state`. */
  waitJob(
    queue: Queue<never> | Queue<AgentRunJob> | Queue<FireJob> | Queue<CallbackJob>,
    jobId: string,
    state?: string,
    timeoutMs?: number,
  ): Promise<void>;
  /** Executions of a schedule, oldest first. */
  executionsOf(scheduleId: string): Promise<ExecutionRecord[]>;
  close(): Promise<void>;
}

/** Polls until a value comes (libs/testing); the worker suites import it from here. */
export { eventually };

/** The default agent stand-in: answers as the agent service does, with the message echoed. */
const echoAgent: LocalHandler = (req, res) => {
  const body = req.json as { agent_id: string; session_id: string; message: string };
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({ response: `echo: ${body.message}`, session_id: body.session_id, agent_id: String(body.agent_id) }),
  );
};

/**
 * The worker's runtime (createWorkerRuntime, all three consumers) on real FerretDB (a database of this file's own) and
 * real Redis (a queue prefix of this file's own), in this process. Executions, schedules and jobs are made with
 * @platform/scheduling as the scheduler makes them. Only what is outside the product stands in as local servers:
 * the agent service's inference endpoint and a user's HTTP endpoint.
 */
export async function startWorkerStack(opts: StackOptions = {}): Promise<WorkerStack> {
  const dbs = await createTestDatabases('worker', undefined, { monitorCommands: opts.monitorCommands });
  const redisUrl = opts.redisUrl ?? testInfra.redisUrl;
  const prefix = uniqueName('wq');
  const internalSecret = randomBytes(32).toString('hex');
  const box = createSecretBox(randomBytes(32));

  let agentHandler: LocalHandler = echoAgent;
  const agent = await startLocalServer((req, res) => agentHandler(req, res));
  const agentDoor = await startDoor(agent.port);
  let targetHandler: LocalHandler = (_req, res) => res.end('ok');
  const target = await startLocalServer((req, res) => targetHandler(req, res));

  const producer: RedisConnection = producerConnection(redisUrl);
  producer.on('error', () => undefined);
  const queues: RunQueues = {
    agentRuns: createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, producer, {}, prefix),
    httpCalls: createQueue<AgentRunJob>(QUEUE_NAMES.httpCalls, producer, {}, prefix),
  };
  const fires = createQueue<FireJob>(QUEUE_NAMES.scheduleFires, producer, {}, prefix, createRepeatStrategy());
  const callbacks = createQueue<CallbackJob>(QUEUE_NAMES.callbacks, producer, {}, prefix);
  const allQueues: Queue[] = [queues.agentRuns, queues.httpCalls, fires, callbacks];
  for (const q of allQueues) q.on('error', () => undefined);

  const executions = createExecutionRepository(dbs.conn);
  const schedules = createScheduleRepository(dbs.conn);
  await syncIndexes(dbs.conn);

  const redis = workerConnection(redisUrl);
  redis.on('error', () => undefined);
  const outbound = createOutboundClient({ allowHosts: `127.0.0.1:${target.port}` });
  const { logger, lines } = captureLogger('worker');
  const config: RuntimeConfig = {
    QUEUE_PREFIX: prefix,
    AGENT_SERVICE_URL: opts.agentServiceUrl ?? agentDoor.url,
    INTERNAL_SERVICE_SECRET: internalSecret,
    AGENT_RUN_TIMEOUT_MS: opts.agentRunTimeoutMs ?? 10_000,
    WORKER_CONCURRENCY: 8,
    AGENT_RUN_CONCURRENCY: 8,
    JOB_LOCK_MS: 30_000,
    STALLED_INTERVAL_MS: 30_000,
    LIVENESS_STALE_MS: 30_000,
    HTTP_MAX_RESPONSE_BYTES: opts.httpMaxResponseBytes ?? 5 * 1024 * 1024,
    FIRE_CONCURRENCY: 8,
    ENQUEUE_TIMEOUT_MS: 2_000,
    STORE_RETRY_BASE_MS: 100,
    STORE_RETRY_MAX_MS: 400,
    ...(opts.callbackDelaysMs ? { CALLBACK_RETRY_DELAYS_MS: opts.callbackDelaysMs } : {}),
    ...(opts.callbackTimeoutMs ? { CALLBACK_TIMEOUT_MS: opts.callbackTimeoutMs } : {}),
  };
  const runtime = await createWorkerRuntime({
    config,
    db: dbs.conn,
    redis,
    registry: new Registry(),
    logger,
    outbound,
    box,
  });

  async function createSchedule(
    fields: Omit<
      NewSchedule,
      'cron_expression' | 'timezone' | 'max_retries' | 'retry_delay' | 'overlap_policy' | 'is_active'
    >,
    o: ScheduleOptions,
  ) {
    return schedules.create(
      OWNER,
      {
        ...fields,
        cron_expression: o.cron_expression ?? '0 0 * * *',
        timezone: o.timezone ?? 'UTC',
        max_retries: o.max_retries ?? 0,
        retry_delay: o.retry_delay ?? 1,
        overlap_policy: o.overlap_policy ?? 'allow',
        is_active: o.is_active ?? true,
        ...(o.callback ? { callback_url: o.callback.url, callback_secret_sealed: o.callback.secret } : {}),
      },
      o.at ?? new Date(),
    );
  }

  const stack: WorkerStack = {
    dbs,
    prefix,
    internalSecret,
    box,
    agent,
    agentDoor,
    setAgent: (h) => {
      agentHandler = h;
    },
    target,
    setTarget: (h) => {
      targetHandler = h;
    },
    executions,
    schedules,
    queues,
    fires,
    callbacks,
    runtime,
    lines,
    agentCallsOf: (id) =>
      agent.requests.filter((r) => (r.json as { session_id?: string } | undefined)?.session_id === `execution-${id}`),
    createAgentSchedule: (message, agentId, o = {}) =>
      createSchedule({ kind: 'agent', agent_id: agentId, message, http: null }, o),
    createHttpSchedule: (input, o = {}) =>
      createSchedule(
        {
          kind: 'http',
          agent_id: null,
          message: '',
          http: {
            name: 'ping',
            url: input.url,
            method: input.method ?? 'GET',
            headers_sealed: Object.fromEntries(
              Object.entries(input.headers ?? {}).map(([k, v]) => [k, box.encrypt(v)]),
            ),
            query: input.query ?? {},
            body: input.body === undefined ? null : input.body,
            timeout_ms: input.timeout_ms ?? 5_000,
          },
        },
        o,
      ),
    async runNow(s) {
      const exec = await executions.create(
        {
          kind: s.kind === 'agent' ? 'agent_schedule' : 'http_schedule',
          schedule_id: s.id,
          agent_id: s.agent_id,
          user_id: s.user_id,
          org_id: s.org_id,
          payload: s.kind === 'agent' ? s.message : { method: s.http?.method, url: s.http?.url, manual: true },
          max_attempts: s.max_retries + 1,
          retry_delay_ms: s.retry_delay * 1000,
        },
        new Date(),
      );
      await enqueueRun(queues, exec, ENQUEUE);
      return exec;
    },
    async triggerWebhookRun(input) {
      const exec = await executions.create(
        {
          kind: 'webhook',
          webhook_id: input.webhook_id ?? '0123456789abcdef01234567',
          agent_id: input.agent_id === undefined ? '42' : input.agent_id,
          ...OWNER,
          payload: input.payload,
          max_attempts: input.max_attempts ?? 3,
          callback: input.callback ?? null,
        },
        new Date(),
      );
      await enqueueRun(queues, exec, ENQUEUE);
      return exec;
    },
    storeExecution: (input) => executions.create(input, new Date()),
    enqueue: (exec, jobId) => enqueueRun(queues, exec, ENQUEUE, jobId),
    waitEnded: (id, timeoutMs = 15_000) =>
      eventually(
        `execution ${id} to end`,
        async () => {
          const e = await executions.get(id);
          return e && ENDED.includes(e.status) ? e : undefined;
        },
        timeoutMs,
      ),
    waitJob: (queue, jobId, state = 'completed', timeoutMs = 15_000) =>
      eventually(
        `job ${jobId} of ${queue.name} to be ${state}`,
        async () => ((await queue.getJobState(jobId)) === state ? true : undefined),
        timeoutMs,
      ).then(() => undefined),
    async executionsOf(scheduleId) {
      const { items } = await executions.list(OWNER, { schedule_id: scheduleId, skip: 0, limit: 100 });
      return items.sort((a, b) => a.triggered_at.localeCompare(b.triggered_at));
    },
    async close() {
      await runtime.consumers.close();
      await runtime.flush();
      await Promise.all(runtime.queuesToClose.map((q) => q.close()));
      for (const q of allQueues) {
        await within(2_000, q.obliterate({ force: true })).catch(() => undefined);
        await within(2_000, q.close()).catch(() => undefined);
      }
      outbound.close();
      redis.disconnect();
      producer.disconnect();
      await agentDoor.shut();
      await agent.close();
      await target.close();
      await dbs.cleanup();
    },
  };
  return stack;
}
