/**
 * The trigger benchmark's stack, shared by trigger.bench.ts and tracing.ts: the real agent service, scheduler and
 * worker processes as `pnpm start` runs them (logs at `info`), one webhook of one agent calling the local LLM
 * stand-in, signed triggers sent at a fixed concurrency, and the worker's count of ended runs.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

import { startServiceProcess, type ServiceProcess } from '@platform/testing';

const ROOT = resolve(__dirname, '../../../..'); // from bench/dist/bench/trigger
const entry = (service: string) => resolve(ROOT, `services/${service}/dist/main.js`);
/** Until a process answers /readyz: generous, as a shared machine under load starts them slowly. */
const START_TIMEOUT_MS = 60_000;

/** The keys the three processes share; stacks on one database must share them too (they decrypt its records). */
export interface StackKeys {
  internal: string;
  scheduleKey: string;
  webhookKey: string;
  credentialsKey: string;
}

export const newStackKeys = (): StackKeys => ({
  internal: randomBytes(32).toString('hex'),
  scheduleKey: randomBytes(32).toString('hex'),
  webhookKey: randomBytes(32).toString('hex'),
  credentialsKey: randomBytes(32).toString('hex'),
});

export interface StackOptions {
  mongoUri: string;
  redisUrl: string;
  authDb: string;
  /** The executions' database (the scheduler's and the worker's); the agent service's is `<dbName>_agent`. */
  dbName: string;
  /** Queue prefix: stacks sharing one Redis keep apart by it. */
  prefix: string;
  llmPort: number;
  keys: StackKeys;
  /** Added to each process's environment (e.g. the OTEL_* variables). */
  env?: Record<string, string>;
}

export interface Stack {
  agent: ServiceProcess;
  scheduler: ServiceProcess;
  worker: ServiceProcess;
  /** The three, in the order started (agent, scheduler, worker). */
  all: ServiceProcess[];
}

/** The agent service as the stack runs it (logs at `info`, as `pnpm start`), its database `<dbName>_agent`. */
export function startAgentService(
  o: Pick<StackOptions, 'mongoUri' | 'authDb' | 'dbName' | 'llmPort' | 'env'> & {
    keys: Pick<StackKeys, 'internal' | 'credentialsKey'>;
  },
): Promise<ServiceProcess> {
  return startServiceProcess({
    script: entry('agent'),
    timeoutMs: START_TIMEOUT_MS,
    env: {
      MONGODB_URI: o.mongoUri,
      AUTH_DB: o.authDb,
      LOG_LEVEL: 'info',
      ...o.env,
      MONGODB_DB: `${o.dbName}_agent`,
      CREDENTIALS_ENCRYPTION_KEY: o.keys.credentialsKey,
      INTERNAL_SERVICE_SECRET: o.keys.internal,
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${o.llmPort}`,
    },
  });
}

/**
 * Starts the agent service, the scheduler and the worker. The processes started before one that fails to start are
 * handed to `started` first, so the caller stops them either way.
 */
export async function startStack(o: StackOptions, started: (p: ServiceProcess) => void): Promise<Stack> {
  const common = { MONGODB_URI: o.mongoUri, AUTH_DB: o.authDb, LOG_LEVEL: 'info', ...o.env }; // as `pnpm start`
  const agent = await startAgentService(o);
  started(agent);
  const scheduler = await startServiceProcess({
    script: entry('scheduler'),
    timeoutMs: START_TIMEOUT_MS,
    env: {
      ...common,
      MONGODB_DB: o.dbName,
      REDIS_URL: o.redisUrl,
      QUEUE_PREFIX: o.prefix,
      AGENT_SERVICE_URL: agent.url,
      WEBHOOK_SECRET_ENCRYPTION_KEY: o.keys.webhookKey,
      SCHEDULE_SECRET_ENCRYPTION_KEY: o.keys.scheduleKey,
    },
  });
  started(scheduler);
  const worker = await startServiceProcess({
    script: entry('worker'),
    timeoutMs: START_TIMEOUT_MS,
    env: {
      ...common,
      MONGODB_DB: o.dbName,
      REDIS_URL: o.redisUrl,
      QUEUE_PREFIX: o.prefix,
      AGENT_SERVICE_URL: agent.url,
      INTERNAL_SERVICE_SECRET: o.keys.internal,
      SCHEDULE_SECRET_ENCRYPTION_KEY: o.keys.scheduleKey,
    },
  });
  started(worker);
  return { agent, scheduler, worker, all: [agent, scheduler, worker] };
}

/** POSTs JSON with an API key; the answer's JSON, or an error with its status and body. */
async function postWithKey(url: string, apiKey: string, body: unknown): Promise<Record<string, string>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, string>;
}

/** A new agent of the agent service at `agentUrl` (its id), whose provider is the LLM stand-in at `llmBaseUrl`. */
export async function createAgent(agentUrl: string, apiKey: string, llmBaseUrl: string): Promise<string> {
  const cred = await postWithKey(`${agentUrl}/v3/providers/credentials`, apiKey, {
    name: 'local',
    provider_id: 'openai',
    credentials: { api_key: 'sk-bench', base_url: llmBaseUrl },
  });
  const ag = await postWithKey(`${agentUrl}/v3/agents/`, apiKey, {
    name: 'bench',
    system_prompt: 'Echo.',
    provider_id: 'openai',
    model: 'm',
    llm_credential_id: cred.credential_id,
  });
  return ag.agent_id ?? '';
}

/** A webhook of a new agent of the stack, whose provider is the LLM stand-in at `llmBaseUrl`. */
export async function createWebhook(
  stack: Stack,
  apiKey: string,
  llmBaseUrl: string,
): Promise<{ id: string; secret: Buffer }> {
  const agentId = await createAgent(stack.agent.url, apiKey, llmBaseUrl);
  const hook = await postWithKey(`${stack.scheduler.url}/agent-webhooks/`, apiKey, { agent_id: agentId });
  return { id: hook.id ?? '', secret: Buffer.from(hook.secret_key ?? '', 'utf8') };
}

/** The trigger's body: ~900 bytes. */
export const bodyOf = (i: number) => JSON.stringify({ event: 'order.created', order: i, note: 'x'.repeat(850) });

/** Trigger `i`'s body and its signature header under the webhook's secret. */
export const signed = (key: Buffer) => (i: number) => {
  const body = bodyOf(i);
  return {
    body,
    headers: { 'x-webhook-signature': `sha256=${createHmac('sha256', key).update(body).digest('hex')}` },
  };
};

export interface Load {
  seconds: number;
  latencies: number[];
  statuses: Map<number, number>;
}

/** `total` POSTs by `concurrency` loops over keep-alive connections; each request built by `make(i)`. */
export async function load(
  url: string,
  total: number,
  concurrency: number,
  make: (i: number) => { body: string; headers: Record<string, string> },
): Promise<Load> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < total; i = next++) {
        const { body, headers } = make(i);
        const t = performance.now();
        const res = await fetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...headers },
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies, statuses };
}

/**
 * The worker's agent runs ended so far (succeeded or failed), from its own metrics: polling the database for progress
 * took FerretDB's time from the runs it counted.
 */
export async function endedAttempts(workerUrl: string): Promise<number> {
  const text = await (await fetch(`${workerUrl}/metrics`)).text();
  const ended = [...text.matchAll(/^run_attempts_total\{([^}]*)\} (\d+)$/gm)].filter(
    ([, labels]) => /kind="agent"/.test(labels!) && /outcome="(succeeded|failed)"/.test(labels!),
  );
  return ended.reduce((n, m) => n + Number(m[2]), 0);
}

/** The worker's agent run attempts that failed so far (a retried run counts each failed attempt). */
export async function failedAttempts(workerUrl: string): Promise<number> {
  const text = await (await fetch(`${workerUrl}/metrics`)).text();
  return [...text.matchAll(/^run_attempts_total\{([^}]*)\} (\d+)$/gm)]
    .filter(([, labels]) => /kind="agent"/.test(labels!) && /outcome="failed"/.test(labels!))
    .reduce((n, m) => n + Number(m[2]), 0);
}

/**
 * Polls `endedAttempts` every 250 ms (each read of the metrics costs the worker CPU of the phase) until it reaches
 * `target` or `timeoutMs` passes; returns the last count.
 */
export async function waitForRuns(workerUrl: string, target: number, timeoutMs = 600_000): Promise<number> {
  let done = 0;
  const deadline = Date.now() + timeoutMs;
  while (done < target && Date.now() < deadline) {
    done = await endedAttempts(workerUrl);
    if (done < target) await new Promise((r) => setTimeout(r, 250));
  }
  return done;
}
