/**
 * Webhook list and bulk-pause latency with 100,000 webhooks of one user, against the real scheduler process on
 * the local FerretDB. Seeds a fresh database directly, measures sequential requests, prints figures, drops it.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';

import { createApiKeyRepository } from '@platform/auth';
import { connectMongo, mongoose, type Connection } from '@platform/db';
import { createSecretBox } from '@platform/secrets';
import { startServiceProcess, testInfra, uniqueName, type ServiceProcess } from '@platform/testing';

import { webhookModel, type WebhookDoc } from '../../services/scheduler/src/webhooks/webhook.model';
import { runBench } from '../kit/bench-kit';

const TOTAL = Number(process.env.BENCH_WEBHOOKS ?? 100_000);
const BATCH = 2_000;
const AGENTS = 10;
const PAUSED_EVERY = 10; // every 10th webhook starts paused
const BULK_ROUNDS = 20;
const OWNER = { user_id: 'bench-user', org_id: 'bench-org' };
const SCHEDULER_MAIN = resolve(__dirname, '../../../../services/scheduler/dist/main.js'); // from bench/dist/bench/webhooks;

const out = (line: string) => process.stdout.write(`${line}\n`);

async function seed(conn: Connection, encryptionKey: Buffer): Promise<string[]> {
  const Webhook = webhookModel(conn);
  const sealed = createSecretBox(encryptionKey).encrypt(`whsec_${randomBytes(32).toString('base64')}`);
  const start = Date.now() - TOTAL * 1000;
  const activeIds: string[] = [];
  for (let from = 0; from < TOTAL; from += BATCH) {
    const docs: WebhookDoc[] = [];
    for (let i = from; i < Math.min(from + BATCH, TOTAL); i++) {
      const doc: WebhookDoc = {
        _id: new mongoose.Types.ObjectId(),
        ...OWNER,
        agent_id: String(1 + (i % AGENTS)),
        description: `bench webhook ${i}`,
        secret_key_sealed: sealed,
        previous_secret_key_sealed: null,
        previous_secret_expires_at: null,
        is_active: i % PAUSED_EVERY !== 0,
        created_at: new Date(start + i * 1000),
        updated_at: null,
        last_triggered_at: null,
        last_trigger_success: null,
        trigger_count: 0,
      };
      if (doc.is_active) activeIds.push(doc._id.toHexString());
      docs.push(doc);
    }
    await Webhook.collection.insertMany(docs, { ordered: false });
  }
  return activeIds;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function report(name: string, samples: number[]): void {
  const s = [...samples].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1).padStart(8);
  out(
    `${name.padEnd(44)} n=${String(s.length).padStart(3)}  p50 ${f(percentile(s, 50))} ms  p99 ${f(percentile(s, 99))} ms  max ${f(s.at(-1) ?? NaN)} ms`,
  );
}

/** Milliseconds of one request, or null when it did not answer `expectStatus` (counted as an error). */
async function timed(url: string, init: RequestInit, expectStatus: number): Promise<number | null> {
  const started = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  const ms = performance.now() - started;
  if (res.status === expectStatus) return ms;
  out(`  ${init.method ?? 'GET'} ${url} → ${res.status} after ${ms.toFixed(0)} ms: ${body.slice(0, 200)}`);
  return null;
}

/** Runs `n` sequential requests and reports them; returns the timings. */
async function measure(name: string, n: number, request: (i: number) => Promise<number | null>): Promise<number[]> {
  const samples: number[] = [];
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const ms = await request(i);
    if (ms === null) errors++;
    else samples.push(ms);
  }
  report(name + (errors ? ` (${errors} errors)` : ''), samples);
  return samples;
}

async function main(): Promise<void> {
  const dbName = uniqueName('bench_webhooks');
  const authDb = `${dbName}_auth`;
  const conn = await connectMongo({ uri: testInfra.mongoUri, dbName, serverSelectionTimeoutMS: 5000 });
  const authConn = await connectMongo({ uri: testInfra.mongoUri, dbName: authDb, serverSelectionTimeoutMS: 5000 });
  let scheduler: ServiceProcess | undefined;
  const cleanup = async () => {
    await scheduler?.stop();
    await conn.dropDatabase().catch(() => undefined);
    await authConn.dropDatabase().catch(() => undefined);
    await Promise.all([conn.close(), authConn.close()]);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  const load = () =>
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} cores`;
  out(`start: ${load()}`);
  try {
    const keys = createApiKeyRepository(authConn);
    await keys.init();
    const { key } = await keys.create(OWNER, 'bench');
    const encryptionKey = randomBytes(32);

    let t = performance.now();
    const activeIds = await seed(conn, encryptionKey);
    out(`seeded ${TOTAL} webhooks of one user in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    t = performance.now();
    scheduler = await startServiceProcess({
      script: SCHEDULER_MAIN,
      timeoutMs: 120_000,
      env: {
        MONGODB_URI: testInfra.mongoUri,
        REDIS_URL: testInfra.redisUrl,
        MONGODB_DB: dbName,
        AUTH_DB: authDb,
        WEBHOOK_SECRET_ENCRYPTION_KEY: encryptionKey.toString('hex'),
        SCHEDULE_SECRET_ENCRYPTION_KEY: encryptionKey.toString('hex'),
        AGENT_SERVICE_URL: 'http://127.0.0.1:9', // not asked: nothing is created over HTTP here
        LOG_LEVEL: 'warn',
      },
    });
    out(`scheduler ready (indexes built) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const get = (query: string) => timed(`${scheduler!.url}/agent-webhooks/${query}`, { headers }, 200);

    for (let i = 0; i < 5; i++) await get('?limit=50'); // warm-up: connections, key cache, JIT

    // FerretDB sorts and counts every match in process (100,000 here), so the unfiltered and deep-skip pages cost
    // seconds each: fewer of those, more of the filtered ones. BENCH_SCALE multiplies every count.
    const scale = Number(process.env.BENCH_SCALE ?? 1);
    const lists: [string, (i: number) => string, number][] = [
      ['GET /agent-webhooks/?limit=50 (100,000 match)', () => '?limit=50', 40],
      ['GET ?skip=<0..99,950>&limit=50 (100,000 match)', (i) => `?skip=${(i * 7919) % (TOTAL - 50)}&limit=50`, 20],
      ['GET ?is_active=false&limit=50 (10,000 match)', () => '?is_active=false&limit=50', 120],
      ['GET ?agent_id=<1..10>&limit=50 (10,000 match)', (i) => `?agent_id=${1 + (i % AGENTS)}&limit=50`, 120],
    ];
    const all: number[] = [];
    for (const [name, query, n] of lists)
      all.push(...(await measure(name, Math.ceil(n * scale), (i) => get(query(i)))));
    report('all list requests', all);

    await measure('POST /agent-webhooks/pause-bulk/ (100 fresh ids)', BULK_ROUNDS, (round) => {
      const body = JSON.stringify(activeIds.slice(round * 100, round * 100 + 100));
      return timed(`${scheduler!.url}/agent-webhooks/pause-bulk/`, { method: 'POST', headers, body }, 200);
    });
    out(`end: ${load()}`);
  } finally {
    await cleanup();
  }
}

runBench('webhooks', main);
