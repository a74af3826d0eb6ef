/**
 * Soak: mixed load for SOAK_MINUTES (default 60) against the scheduler, worker and agent service as real processes
 * on real FerretDB and a Redis of its own (so that its memory is this stack's alone), the LLM replaced by a local instant OpenAI-protocol server. Every SOAK_SAMPLE_S it
 * samples Redis memory (INFO used_memory) and each process's heap, resident memory and open handles (from its own
 * /metrics). At the end it compares the last quarter of the run with the quarter after the warm-up (the first tenth)
 * and calls each figure flat when it grew by at most SOAK_MAX_GROWTH (default 1.25×); exits 1 when one is not.
 * Not part of CI: `pnpm soak` (bench/soak/soak.sh).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

import { IORedis } from '@platform/queue';
import {
  createTestDatabases,
  privateRedis,
  startFakeLlm,
  startServiceProcess,
  testInfra,
  uniqueName,
  type FakeLlm,
  type ServiceProcess,
} from '@platform/testing';

import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 60);
const SAMPLE_S = Number(process.env.SOAK_SAMPLE_S ?? 30);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 4);
const MAX_GROWTH = Number(process.env.SOAK_MAX_GROWTH ?? 1.25);
/** Waiting agent runs above which the trigger loops pause (SOAK_BACKLOG). */
const BACKLOG = Number(process.env.SOAK_BACKLOG ?? 200);
const ROOT = resolve(__dirname, '../../../..'); // from bench/dist/bench/soak
const entry = (service: string) => resolve(ROOT, `services/${service}/dist/main.js`);

interface Sample {
  at: number;
  redisBytes: number;
  /** Per process: heap used, resident set, open handles. */
  procs: Record<string, { heap: number; rss: number; handles: number }>;
}

/** A metric's value from Prometheus text (the first series of that name). */
function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

async function sample(redis: IORedis, procs: Record<string, ServiceProcess>): Promise<Sample> {
  const info = await redis.info('memory');
  const redisBytes = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
  const entries = await Promise.all(
    Object.entries(procs).map(async ([name, p]) => {
      const text = await (await fetch(`${p.url}/metrics`)).text();
      return [
        name,
        {
          heap: metric(text, 'nodejs_heap_size_used_bytes'),
          rss: metric(text, 'process_resident_memory_bytes'),
          handles: metric(text, 'nodejs_active_handles_total'),
        },
      ] as const;
    }),
  );
  return { at: Date.now(), redisBytes, procs: Object.fromEntries(entries) };
}

/** Redis memory by key shape (ids and numbers folded to `*`), the largest groups first: what grew, when something did. */
async function redisByShape(redis: IORedis): Promise<Map<string, { keys: number; bytes: number }>> {
  const groups = new Map<string, { keys: number; bytes: number }>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const shape = key.replace(/[0-9a-f]{24}|[0-9a-f-]{36}|\d+/g, '*').replace(/soakq[^:]*/, 'soakq');
      const bytes = (await redis.memory('USAGE', key)) ?? 0;
      const g = groups.get(shape) ?? { keys: 0, bytes: 0 };
      g.keys += 1;
      g.bytes += bytes;
      groups.set(shape, g);
    }
  } while (cursor !== '0');
  return groups;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

type Call = (method: string, url: string, body?: unknown) => Promise<Record<string, string>>;

/** An agent with memory calling the LLM stand-in, a webhook and a schedule of it. */
async function createFixtures(call: Call, agent: ServiceProcess, scheduler: ServiceProcess, llm: FakeLlm) {
  const cred = await call('POST', `${agent.url}/v3/providers/credentials`, {
    name: 'local',
    provider_id: 'openai',
    credentials: { api_key: 'sk-soak', base_url: llm.baseUrl },
  });
  const ag = await call('POST', `${agent.url}/v3/agents/`, {
    name: 'soak',
    system_prompt: 'Echo.',
    provider_id: 'openai',
    model: 'm',
    llm_credential_id: cred.credential_id,
    features: [{ type: 'MEMORY', config: {} }],
  });
  const hook = await call('POST', `${scheduler.url}/agent-webhooks/`, { agent_id: ag.agent_id });
  const schedule = await call('POST', `${scheduler.url}/schedules/`, {
    agent_id: ag.agent_id,
    cron_expression: '*/5 * * * *',
    message: 'soak',
  });
  const secret = Buffer.from(hook.secret_key ?? '', 'utf8');
  return { ag, hook, schedule, secret };
}

/** The mixed load: each operation, by name, as one loop runs it (`i`: the loop's count). */
function mixesOf(o: {
  redis: IORedis;
  prefix: string;
  call: Call;
  agent: ServiceProcess;
  scheduler: ServiceProcess;
  fixtures: Awaited<ReturnType<typeof createFixtures>>;
}): Record<string, (i: number) => Promise<unknown>> {
  const { redis, prefix, call, agent, scheduler } = o;
  const { ag, hook, schedule, secret } = o.fixtures;
  // Paced to what the worker drains: a soak looks for leaks at a load the stack sustains, and a backlog that
  // grows for an hour would be the queue filling, not a leak (throughput is bench/trigger's subject).
  const paced = async () => {
    while ((await redis.llen(`${prefix}:agent-runs:wait`)) > BACKLOG) await new Promise((r) => setTimeout(r, 250));
  };
  return {
    trigger: async (i) => {
      await paced();
      const body = JSON.stringify({ event: 'soak', i, note: 'x'.repeat(800) });
      const res = await fetch(`${scheduler.url}/webhook-trigger/${hook.id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-webhook-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        },
        body,
      });
      await res.arrayBuffer();
      if (res.status !== 202) throw new Error(`trigger: ${res.status}`);
    },
    crud: async () => {
      const made = await call('POST', `${scheduler.url}/agent-webhooks/`, {
        agent_id: ag.agent_id,
        description: 'soak',
      });
      await call('GET', `${scheduler.url}/agent-webhooks/${made.id}`);
      await call('GET', `${scheduler.url}/agent-webhooks/?limit=20`);
      await call('PATCH', `${scheduler.url}/agent-webhooks/${made.id}`, { description: 'changed' });
      await call('DELETE', `${scheduler.url}/agent-webhooks/${made.id}`);
    },
    chat: (i) =>
      call('POST', `${agent.url}/v3/inference/chat/`, {
        agent_id: ag.agent_id,
        session_id: `soak-${i % 50}`,
        message: `hello ${i}`,
      }),
    scheduleTrigger: async () => {
      await paced();
      return call('POST', `${scheduler.url}/schedules/${schedule.id}/trigger`);
    },
  };
}

/** Runs the mixes for MINUTES, sampling every SAMPLE_S; returns the samples, the counts and the Redis key shapes. */
async function runLoad(
  redis: IORedis,
  procs: Record<string, ServiceProcess>,
  llm: FakeLlm,
  mixes: Record<string, (i: number) => Promise<unknown>>,
) {
  const counts: Record<string, number> = { trigger: 0, crud: 0, chat: 0, scheduleTrigger: 0, errors: 0 };
  const latencies: number[] = [];
  const until = Date.now() + MINUTES * 60_000;
  out(
    `bench/soak: ${MINUTES} min of mixed load (${Object.keys(mixes).join(', ')}; ${CONCURRENCY} loops each), sampled every ${SAMPLE_S} s; ${machineLoad()}`,
  );
  const samples: Sample[] = [await sample(redis, procs)];
  let earlyShapes = new Map<string, { keys: number; bytes: number }>();
  const earlyShapesTimer = setTimeout(
    () =>
      void redisByShape(redis).then(
        (g) => (earlyShapes = g),
        () => undefined,
      ),
    (MINUTES * 60_000) / 4,
  );
  const sampler = setInterval(() => {
    llm.requests.length = 0; // the stand-in keeps what it received; an hour of it is not this figure's subject
    void sample(redis, procs).then(
      (s) => samples.push(s),
      () => undefined,
    );
  }, SAMPLE_S * 1000);
  await Promise.all(
    Object.entries(mixes).flatMap(([name, run]) =>
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = 0; Date.now() < until; i++) {
          const t = performance.now();
          try {
            await run(i);
            counts[name]! += 1;
            latencies.push(performance.now() - t);
          } catch (err) {
            counts.errors! += 1;
            if (counts.errors! <= 5) out(`error: ${(err as Error).message}`);
          }
        }
      }),
    ),
  );
  clearInterval(sampler);
  clearTimeout(earlyShapesTimer);
  samples.push(await sample(redis, procs));
  const lateShapes = await redisByShape(redis);
  return { counts, latencies, samples, earlyShapes, lateShapes };
}

/** The quarter after the warm-up against the last quarter: throws when a judged figure grew or too many failed. */
function report(
  { counts, latencies, samples, earlyShapes, lateShapes }: Awaited<ReturnType<typeof runLoad>>,
  procs: Record<string, ServiceProcess>,
): void {
  const warm = samples.slice(Math.floor(samples.length / 10));
  const q = Math.max(1, Math.floor(warm.length / 4));
  const [early, late] = [warm.slice(0, q), warm.slice(-q)];
  const rows: [string, (s: Sample) => number, (n: number) => string][] = [
    ['redis used_memory', (s) => s.redisBytes, mib],
  ];
  for (const p of Object.keys(procs)) {
    rows.push(
      [`${p} heap used`, (s) => s.procs[p]!.heap, mib],
      [`${p} resident`, (s) => s.procs[p]!.rss, mib],
      [`${p} open handles`, (s) => s.procs[p]!.handles, (n) => n.toFixed(0)],
    );
  }
  const total = Object.entries(counts)
    .filter(([k]) => k !== 'errors')
    .reduce((a, [, v]) => a + v, 0);
  out(
    `operations: ${JSON.stringify(counts)} (${(total / (MINUTES * 60)).toFixed(0)}/s; p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms)`,
  );
  out(`${samples.length} samples; figure: early quarter → late quarter (ratio)`);
  const grown: string[] = [];
  for (const [name, get, fmt] of rows) {
    const [a, b] = [mean(early.map(get)), mean(late.map(get))];
    const ratio = b / a;
    // Resident memory is reported, not judged: the allocator keeps freed pages.
    const judged = !name.endsWith('resident');
    if (judged && ratio > MAX_GROWTH) grown.push(name);
    out(
      `  ${name.padEnd(26)} ${fmt(a).padStart(10)} → ${fmt(b).padStart(10)}  (${ratio.toFixed(2)}×)${judged && ratio > MAX_GROWTH ? '  NOT FLAT' : ''}`,
    );
  }
  out('redis by key shape: a quarter in → the end (keys, memory), the ten largest at the end');
  for (const [shape, g] of [...lateShapes].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 10)) {
    const e = earlyShapes.get(shape) ?? { keys: 0, bytes: 0 };
    out(
      `  ${shape.padEnd(40)} ${String(e.keys).padStart(7)} → ${String(g.keys).padStart(7)} keys  ${mib(e.bytes).padStart(10)} → ${mib(g.bytes).padStart(10)}`,
    );
  }
  out(
    grown.length === 0 ? `flat: every judged figure grew by at most ${MAX_GROWTH}×` : `not flat: ${grown.join(', ')}`,
  );
  if (counts.errors! > 0) out(`${counts.errors} operations failed`);
  if (grown.length > 0 || counts.errors! > total / 1000) throw new Error('soak failed');
}

async function main(): Promise<void> {
  const dbs = await createTestDatabases('soak');
  const llm = await startFakeLlm('openai');
  const internal = randomBytes(32).toString('hex');
  const scheduleKey = randomBytes(32).toString('hex');
  const prefix = uniqueName('soakq');
  const ownRedis = await privateRedis();
  const redisUrl = ownRedis.url;
  // The limits stay on (their counters live in Redis too), high enough that the load never meets them.
  const common = {
    MONGODB_URI: testInfra.mongoUri,
    AUTH_DB: dbs.authDb,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_KEY_PER_MIN: '10000000',
    RATE_LIMIT_PER_WEBHOOK_PER_MIN: '10000000',
    RATE_LIMIT_REDIS_URL: redisUrl,
  };
  const redis = new IORedis(redisUrl);
  const procs: Record<string, ServiceProcess> = {};
  try {
    procs.agent = await startServiceProcess({
      script: entry('agent'),
      env: {
        ...common,
        MONGODB_DB: `${dbs.conn.name}_agent`,
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: prefix,
        CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        INTERNAL_SERVICE_SECRET: internal,
        OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${llm.port}`,
      },
    });
    procs.scheduler = await startServiceProcess({
      script: entry('scheduler'),
      env: {
        ...common,
        MONGODB_DB: dbs.conn.name,
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: prefix,
        AGENT_SERVICE_URL: procs.agent.url,
        WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        SCHEDULE_SECRET_ENCRYPTION_KEY: scheduleKey,
      },
    });
    procs.worker = await startServiceProcess({
      script: entry('worker'),
      env: {
        ...common,
        MONGODB_DB: dbs.conn.name,
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: prefix,
        AGENT_SERVICE_URL: procs.agent.url,
        INTERNAL_SERVICE_SECRET: internal,
        SCHEDULE_SECRET_ENCRYPTION_KEY: scheduleKey,
      },
    });
    const key = await dbs.mintKey({ user_id: 'soak', org_id: 'soak' });
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(url, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 200)}`);
      return (text ? JSON.parse(text) : {}) as Record<string, string>;
    };
    const { agent, scheduler } = procs;
    const fixtures = await createFixtures(call, agent, scheduler, llm);

    const mixes = mixesOf({ redis, prefix, call, agent, scheduler, fixtures });
    report(await runLoad(redis, procs, llm, mixes), procs);
  } finally {
    for (const p of Object.values(procs).reverse()) await p.stop(5_000);
    redis.disconnect();
    await ownRedis.stop();
    await llm.close();
    await dbs.conn
      .useDb(`${dbs.conn.name}_agent`)
      .dropDatabase()
      .catch(() => undefined);
    await dbs.cleanup();
  }
}

runBench('soak', main);
