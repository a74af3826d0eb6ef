import { randomBytes } from 'node:crypto';

import { syncIndexes } from '@platform/db';
import type { Queue } from '@platform/queue';
import {
  createExecutionRepository,
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
  createTestDatabases,
  eventually,
  testInfra,
  uniqueName,
  type LocalHandler,
  type LocalServer,
  type TestDatabases,
} from '@platform/testing';

import type { WorkerRuntime } from '../src/runtime';
import type { Door } from './tcp-door';
import { closeWorkerStack, openQueues, startRuntime, startStandIns } from './worker-stack-parts';

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
  /** FIRE_DIRECT_RUNS of the worker (its default when unset). */
  fireDirectRuns?: number;
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

  const { agent, agentDoor, setAgent, target, setTarget } = await startStandIns();

  const { producer, queues, fires, callbacks, allQueues } = openQueues(redisUrl, prefix);

  const executions = createExecutionRepository(dbs.conn);
  const schedules = createScheduleRepository(dbs.conn);
  await syncIndexes(dbs.conn);

  const { redis, outbound, lines, runtime } = await startRuntime(opts, {
    dbs,
    redisUrl,
    prefix,
    internalSecret,
    box,
    agentDoor,
    target,
  });

  const stack: WorkerStack = {
    dbs,
    prefix,
    internalSecret,
    box,
    agent,
    agentDoor,
    setAgent,
    target,
    setTarget,
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
      createSchedule(schedules, { kind: 'agent', agent_id: agentId, message, http: null }, o),
    createHttpSchedule: (input, o = {}) => createSchedule(schedules, httpScheduleFields(input, box), o),
    runNow: (s) => runScheduleNow(executions, queues, s),
    triggerWebhookRun: (input) => enqueueWebhookRun(executions, queues, input),
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
    close: () => closeWorkerStack({ runtime, allQueues, outbound, redis, producer, agentDoor, agent, target, dbs }),
  };
  return stack;
}

/** What a schedule is made of besides its options. */
type ScheduleFields = Omit<
  NewSchedule,
  'cron_expression' | 'timezone' | 'max_retries' | 'retry_delay' | 'overlap_policy' | 'is_active'
>;

/** Creates a schedule of the owner as the scheduler stores it, the options' defaults filled in. */
async function createSchedule(schedules: ScheduleRepository, fields: ScheduleFields, o: ScheduleOptions) {
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

/** The fields of an HTTP schedule as the scheduler stores them (header values sealed with `box`). */
function httpScheduleFields(input: HttpScheduleInput, box: SecretBox): ScheduleFields {
  return {
    kind: 'http',
    agent_id: null,
    message: '',
    http: {
      name: 'ping',
      url: input.url,
      method: input.method ?? 'GET',
      headers_sealed: Object.fromEntries(Object.entries(input.headers ?? {}).map(([k, v]) => [k, box.encrypt(v)])),
      query: input.query ?? {},
      body: input.body === undefined ? null : input.body,
      timeout_ms: input.timeout_ms ?? 5_000,
    },
  };
}

/** What the scheduler's run-now does: stores an execution of the schedule and puts it on its run queue. */
async function runScheduleNow(
  executions: ExecutionRepository,
  queues: RunQueues,
  s: ScheduleRecord,
): Promise<ExecutionRecord> {
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
}

/** What the scheduler's webhook trigger does: stores a webhook execution and puts it on `agent-runs`. */
async function enqueueWebhookRun(
  executions: ExecutionRepository,
  queues: RunQueues,
  input: WebhookRunInput,
): Promise<ExecutionRecord> {
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
}
