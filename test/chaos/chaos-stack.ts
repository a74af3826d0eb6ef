import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import request from 'supertest';

import { executionModel } from '@platform/scheduling';
import {
  createTestDatabases,
  startLocalServer,
  startServiceProcess,
  uniqueName,
  type LocalServer,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { signSha256 } from '../../services/scheduler/src/webhooks/signature';

const MAIN = (service: string) => resolve(__dirname, `../../services/${service}/dist/main.js`);

export interface ChaosOptions {
  mongoUri: string;
  redisUrl: string;
  /**
   * The PostgreSQL database of the FerretDB at `mongoUri`, when the test runs its own (`privateStore().postgresUrl`):
   * libs/db's adapter takes its locks there, in the test's connections and the service processes alike.
   */
  postgresUrl?: string;
  workers?: number;
  /** Scheduler processes (replicas on the same database and queues); 1 by default. */
  schedulers?: number;
  /** How long the provider stand-in takes to answer. */
  llmDelayMs?: number;
  workerEnv?: Record<string, string>;
  agentEnv?: Record<string, string>;
  schedulerEnv?: Record<string, string>;
  /** Answers the provider stand-in gives instead of its normal one, by trigger number (e.g. hang for some). */
  llmBehaviour?: (n: number) => 'answer' | 'hang';
}

export interface SendResult {
  /** Execution ids answered 202. */
  accepted: string[];
  /** The trigger numbers of those. */
  acceptedNumbers: number[];
  /** Count of answers by status. */
  statuses: Record<number, number>;
  /** The slowest answer of each status, in ms. */
  slowest: Record<number, number>;
}

export interface EndState {
  /** Every execution of the webhook, by id. */
  byId: Map<string, { status: string; attempt: number }>;
  /** Accepted runs that have not ended. */
  unended: string[];
}

/** What the stack's processes share: its options and databases, the queue prefix, secrets, and common environment. */
interface StackBase {
  opts: ChaosOptions;
  dbs: TestDatabases;
  prefix: string;
  internal: string;
  scheduleKey: string;
  common: Record<string, string>;
}

/** The scheduler's database connection. */
type Conn = TestDatabases['conn'];

/** The LLM provider stand-in: counts every call in `calls`, by the trigger number in the message. */
function startLlmStandIn(opts: ChaosOptions, calls: Map<number, number>): Promise<LocalServer> {
  return startLocalServer(async (req, res) => {
    const messages = (req.json as { messages?: { role: string; content: string }[] })?.messages ?? [];
    const text = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    const n = Number((JSON.parse(text || '{}') as { n?: unknown }).n);
    if (Number.isInteger(n)) calls.set(n, (calls.get(n) ?? 0) + 1);
    if (opts.llmBehaviour?.(n) === 'hang') return; // never answers: the caller's time limit has to end it
    if (opts.llmDelayMs) await new Promise((r) => setTimeout(r, opts.llmDelayMs));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: `done ${n}` }, finish_reason: 'stop' }],
      }),
    );
  });
}

/** The environment every service process gets. */
function commonEnv(opts: ChaosOptions, dbs: TestDatabases): Record<string, string> {
  return {
    MONGODB_URI: opts.mongoUri,
    AUTH_DB: dbs.authDb,
    LOG_LEVEL: 'warn',
    // Bursts from 16 senders to one webhook measure durability, not the rate limits (test/security covers those).
    RATE_LIMIT_PER_KEY_PER_MIN: '0',
    RATE_LIMIT_PER_WEBHOOK_PER_MIN: '0',
    ...(opts.postgresUrl ? { FERRETDB_POSTGRESQL_URL: opts.postgresUrl } : {}),
  };
}

/** The agent service's environment, on its own database `agentDb`, allowed to reach the provider stand-in. */
function agentEnvOf(base: StackBase, agentDb: string, llm: LocalServer): Record<string, string> {
  return {
    ...base.common,
    MONGODB_DB: agentDb,
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    INTERNAL_SERVICE_SECRET: base.internal,
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${llm.port}`,
    ...base.opts.agentEnv,
  };
}

const noop = () => undefined;
// Time for a process to answer its readiness probe: two chaos lanes share two cores (the default 20 s once ran out).
const READY_MS = 60_000;

/** Starts the scheduler processes (`opts.schedulers`, 1 by default) into `schedulers`, one after the other. */
async function startSchedulers(
  { opts, dbs, prefix, scheduleKey, common }: StackBase,
  agentUrl: string,
  schedulers: ServiceProcess[],
) {
  const schedulerEnv = {
    ...common,
    MONGODB_DB: dbs.conn.name,
    REDIS_URL: opts.redisUrl,
    QUEUE_PREFIX: prefix,
    AGENT_SERVICE_URL: agentUrl,
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SCHEDULE_SECRET_ENCRYPTION_KEY: scheduleKey,
    OUTBOX_INTERVAL_MS: '500',
    RECOVER_QUEUED_AFTER_MS: '2000',
    RECOVER_RUNNING_AFTER_MS: '30000',
    ...opts.schedulerEnv,
  };
  for (let i = 0; i < (opts.schedulers ?? 1); i++)
    schedulers.push(await startServiceProcess({ script: MAIN('scheduler'), env: schedulerEnv, timeoutMs: READY_MS }));
}

/** Starts one worker process on the agent service at `agentUrl`. */
function startWorkerProcess({ opts, dbs, prefix, internal, scheduleKey, common }: StackBase, agentUrl: string) {
  return startServiceProcess({
    script: MAIN('worker'),
    timeoutMs: READY_MS,
    env: {
      ...common,
      MONGODB_DB: dbs.conn.name,
      REDIS_URL: opts.redisUrl,
      QUEUE_PREFIX: prefix,
      AGENT_SERVICE_URL: agentUrl,
      INTERNAL_SERVICE_SECRET: internal,
      SCHEDULE_SECRET_ENCRYPTION_KEY: scheduleKey,
      STORE_RETRY_BASE_MS: '500',
      STORE_RETRY_MAX_MS: '4000',
      ...opts.workerEnv,
    },
  });
}

/** The stack's owner's API key, and through the services: a credential on the stand-in, an agent, its webhook. */
async function createWebhook(dbs: TestDatabases, agentUrl: string, schedulerUrl: string, llmUrl: string) {
  const key = await dbs.mintKey({ user_id: 'ops', org_id: 'acme' });
  const cred = await request(agentUrl)
    .post('/v3/providers/credentials')
    .set('x-api-key', key)
    .send({ name: 'local', provider_id: 'openai', credentials: { api_key: 'sk-test', base_url: `${llmUrl}/v1` } });
  const made = await request(agentUrl).post('/v3/agents/').set('x-api-key', key).send({
    name: 'chaos',
    system_prompt: 'Handle events.',
    provider_id: 'openai',
    model: 'm',
    llm_credential_id: cred.body.credential_id,
  });
  const hook = await request(schedulerUrl)
    .post('/agent-webhooks/')
    .set('x-api-key', key)
    .send({ agent_id: String(made.body.id) });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${hook.text}`);
  const webhook = hook.body as { id: string; secret_key: string };
  return { key, webhook };
}

/** Sends one signed trigger `{"n": n}` to `scheduler`. */
async function sendTrigger(
  scheduler: ServiceProcess,
  webhook: { id: string; secret_key: string },
  n: number,
): Promise<{ status: number; id?: string }> {
  const body = JSON.stringify({ n });
  try {
    const res = await fetch(`${scheduler.url}/webhook-trigger/${webhook.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signSha256(webhook.secret_key, body) },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const json = (await res.json().catch(() => ({}))) as { execution_id?: string };
    return { status: res.status, id: json.execution_id };
  } catch {
    return { status: 0 };
  }
}

/** Every execution of the webhook `webhookId`: status, attempt and when it finished. */
async function listExecutions(
  conn: Conn,
  webhookId: string,
): Promise<Map<string, { status: string; attempt: number; triggered_at: Date; finished_at: Date | null }>> {
  const docs = await executionModel(conn)
    .find({ webhook_id: webhookId }, { status: 1, attempt: 1, triggered_at: 1, finished_at: 1 })
    .lean();
  return new Map(
    docs.map((d) => [
      d._id.toHexString(),
      {
        status: d.status,
        attempt: d.attempt,
        triggered_at: d.triggered_at as Date,
        finished_at: (d.finished_at as Date | null | undefined) ?? null,
      },
    ]),
  );
}

/** Sends `trigger(n)` from `senders` loops, n = 0, 1, 2, ..., until `stop` resolves or `maxAccepted` were accepted. */
function sendTriggersUntil(
  trigger: (n: number) => Promise<{ status: number; id?: string }>,
  stop: Promise<void>,
  senders: number,
  maxAccepted: number,
): Promise<SendResult> {
  let next = 0;
  let stopped = false;
  void stop.then(() => (stopped = true));
  const result: SendResult = { accepted: [], acceptedNumbers: [], statuses: {}, slowest: {} };
  const loop = async () => {
    while (!stopped && result.accepted.length < maxAccepted) {
      const n = next++;
      const sentAt = Date.now();
      const r = await trigger(n);
      result.slowest[r.status] = Math.max(result.slowest[r.status] ?? 0, Date.now() - sentAt);
      result.statuses[r.status] = (result.statuses[r.status] ?? 0) + 1;
      if (r.status === 202 && r.id) {
        result.accepted.push(r.id);
        result.acceptedNumbers.push(n);
      }
      if (r.status !== 202) await new Promise((res) => setTimeout(res, 100));
    }
  };
  return Promise.all(Array.from({ length: senders }, loop)).then(() => result);
}

/** Polls the executions of the webhook `webhookId` until every accepted run has ended or the deadline passes. */
async function pollEnded(conn: Conn, webhookId: string, accepted: string[], deadline: number): Promise<EndState> {
  const Execution = executionModel(conn);
  for (;;) {
    let state: EndState | undefined;
    try {
      const docs = await Execution.find({ webhook_id: webhookId }, { status: 1, attempt: 1 }).lean();
      const byId = new Map(docs.map((d) => [d._id.toHexString(), { status: d.status, attempt: d.attempt }]));
      const unended = accepted.filter(
        (id) => !['succeeded', 'failed', 'skipped'].includes(byId.get(id)?.status ?? 'missing'),
      );
      state = { byId, unended };
    } catch {
      // the store may still be coming back
    }
    if (state && (state.unended.length === 0 || Date.now() > deadline)) return state;
    if (!state && Date.now() > deadline) return { byId: new Map(), unended: accepted };
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/**
 * The webhook path as an operator runs it: scheduler, agent service and worker(s) as real processes on the given
 * MongoDB (FerretDB) and Redis, which the test may take away; only the LLM provider is a local stand-in. It counts
 * every call the provider got, by the trigger number in the message.
 */
export async function startChaosStack(opts: ChaosOptions) {
  const dbs: TestDatabases = await createTestDatabases('chaos', opts.mongoUri, {
    connect: opts.postgresUrl ? { ferretdb: { postgresUrl: opts.postgresUrl } } : {},
  });
  const prefix = uniqueName('q');
  const internal = randomBytes(32).toString('hex');
  const scheduleKey = randomBytes(32).toString('hex');
  const calls = new Map<number, number>();
  const llm: LocalServer = await startLlmStandIn(opts, calls);
  const base: StackBase = { opts, dbs, prefix, internal, scheduleKey, common: commonEnv(opts, dbs) };
  const agentDb = `${dbs.conn.name}_agent`;
  const agentEnv = agentEnvOf(base, agentDb, llm);
  let agent!: ServiceProcess; // set first thing in the try below
  const schedulers: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  const startWorker = async () => {
    const w = await startWorkerProcess(base, agent.url);
    workers.push(w);
    return w;
  };
  const close = async () => {
    await Promise.all(workers.map((w) => w.stop(2_000)));
    await Promise.all(schedulers.map((p) => p.stop(2_000)));
    await (agent as ServiceProcess | undefined)?.stop(2_000);
    await llm.close();
    await dbs.conn.useDb(agentDb).dropDatabase().catch(noop);
    await dbs.cleanup().catch(noop);
  };
  const { key, webhook } = await (async () => {
    try {
      agent = await startServiceProcess({ script: MAIN('agent'), env: agentEnv, timeoutMs: READY_MS });
      await startSchedulers(base, agent.url, schedulers);
      for (let i = 0; i < (opts.workers ?? 1); i++) await startWorker();
      return await createWebhook(dbs, agent.url, schedulers[0]!.url, llm.url);
    } catch (err) {
      await close(); // what did start, or its handles would keep jest running after the failure
      throw err;
    }
  })();
  const scheduler = schedulers[0]!;
  const trigger = (n: number): Promise<{ status: number; id?: string }> => sendTrigger(scheduler, webhook, n);

  return {
    scheduler,
    /** Every scheduler process (the first is `scheduler`). */
    schedulers,
    /** An API key of the stack's owner, for the services' management routes. */
    key,
    /** The scheduler's database. */
    db: dbs.conn,
    /** The stack's BullMQ prefix. */
    prefix,
    get agent() {
      return agent;
    },
    /** Stops the agent service (SIGKILL: requests in flight are cut) until `start` is called. */
    async killAgent() {
      agent.child.kill('SIGKILL');
      await agent.stop(0);
    },
    /** Starts the agent service again on the same port and database. */
    async startAgent() {
      const { port } = agent;
      agent = await startServiceProcess({ script: MAIN('agent'), env: agentEnv, port, timeoutMs: READY_MS });
    },
    workers,
    startWorker,
    /** Provider calls by trigger number. */
    calls,
    /** Every log line the service processes wrote so far. */
    logLines: () => [...schedulers, agent, ...workers].flatMap((p) => p.output().split('\n')),
    /** The first error-level log lines of every service process (kept from the start of the run). */
    errorLines: () => [...schedulers, agent, ...workers].flatMap((p) => p.errorLines()),
    /** Sends one trigger `{"n": n}`. */
    trigger,
    /** Every execution of the webhook: status, attempt and when it finished. */
    async executions(): Promise<
      Map<string, { status: string; attempt: number; triggered_at: Date; finished_at: Date | null }>
    > {
      return listExecutions(dbs.conn, webhook.id);
    },
    /**
     * Sends triggers `{"n": i}` from `senders` loops until `stop` resolves or `maxAccepted` were accepted; the numbers
     * are 0, 1, 2, ...
     */
    sendUntil(stop: Promise<void>, senders = 16, maxAccepted = Infinity): Promise<SendResult> {
      return sendTriggersUntil(trigger, stop, senders, maxAccepted);
    },
    /** Polls the scheduler's database until every accepted run has ended or the deadline passes. */
    async waitEnded(accepted: string[], deadline: number): Promise<EndState> {
      return pollEnded(dbs.conn, webhook.id, accepted, deadline);
    },
    close,
  };
}

export type ChaosStack = Awaited<ReturnType<typeof startChaosStack>>;

/**
 * The Redis-restart scenario: triggers from 16 senders for 3 s, Redis (the stack's own, `redis`) stopped for 5 s and
 * started again with its data gone, 3 s more of triggers. Returns what was sent and when Redis came back.
 */
export async function burstAcrossRedisRestart(
  s: ChaosStack,
  redis: { stop(): Promise<void>; start(): Promise<void> },
): Promise<{ sent: SendResult; recoveredAt: number }> {
  let stop = () => undefined as void;
  const sending = s.sendUntil(new Promise<void>((r) => (stop = r)));
  await sleep(3_000);
  await redis.stop();
  await sleep(5_000);
  await redis.start();
  const recoveredAt = Date.now();
  await sleep(3_000);
  stop();
  return { sent: await sending, recoveredAt };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
