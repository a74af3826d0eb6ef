/**
 * Execution lists at scale: 1,000,000 executions seeded straight into a fresh database, 100,000 of them one
 * webhook's, then sequential keep-alive requests to the real scheduler process for that webhook's pages, with the
 * stack's own floor measured in the same run (the health route, a webhook read, a driver `findOne` by `_id`).
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';

import { createApiKeyRepository } from '@platform/auth';
import { connectMongo, mongoose, refreshStatistics, type Connection } from '@platform/db';
import { createExecutionRepository } from '@platform/scheduling';
import { createSecretBox } from '@platform/secrets';
import { startServiceProcess, testInfra, uniqueName, type ServiceProcess } from '@platform/testing';

import { webhookModel } from '../../services/scheduler/src/webhooks/webhook.model';
import { runBench } from '../kit/bench-kit';
import { executionDoc } from '../kit/executions';

const TOTAL = Number(process.env.BENCH_EXECUTIONS ?? 1_000_000);
const HOT = Number(process.env.BENCH_HOT_EXECUTIONS ?? 100_000);
const OTHER_WEBHOOKS = 900;
const BATCH = 2_000;
const SPAN_MS = 10 * 24 * 3600_000; // the runs are spread over the last ten days
const OWNER = { user_id: 'bench-user', org_id: 'bench-org' };
const SCHEDULER_MAIN = resolve(__dirname, '../../../../services/scheduler/dist/main.js'); // from bench/dist/bench/executions

const out = (line: string) => process.stdout.write(`${line}\n`);

/** The hot webhook's runs in time order, and the other webhooks' in between. */
async function seed(conn: Connection, hotId: string, now: number): Promise<void> {
  const executions = conn.collection('executions');
  const others = Array.from({ length: OTHER_WEBHOOKS }, () => new mongoose.Types.ObjectId().toHexString());
  const otherSeq = new Array<number>(OTHER_WEBHOOKS).fill(0);
  let hotSeq = 0;
  let batch: ReturnType<typeof executionDoc>[] = [];
  for (let i = 0; i < TOTAL; i++) {
    const at = new Date(now - SPAN_MS + Math.floor((i * SPAN_MS) / TOTAL));
    const hot = i % Math.round(TOTAL / HOT) === 0 && hotSeq < HOT;
    if (hot) batch.push(executionDoc(hotId, OWNER, hotSeq++, at));
    else {
      const w = i % OTHER_WEBHOOKS;
      batch.push(executionDoc(others[w]!, { user_id: `other-${w % 100}`, org_id: 'bench-org' }, otherSeq[w]!++, at));
    }
    if (batch.length === BATCH) {
      await executions.insertMany(batch, { ordered: false });
      batch = [];
    }
  }
  if (batch.length) await executions.insertMany(batch, { ordered: false });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function report(name: string, samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1).padStart(8);
  const r = { p50: percentile(s, 50), p99: percentile(s, 99) };
  out(
    `${name.padEnd(58)} n=${String(s.length).padStart(4)}  p50 ${f(r.p50)} ms  p99 ${f(r.p99)} ms  max ${f(s.at(-1) ?? NaN)} ms`,
  );
  return r;
}

/** Milliseconds of one call; a call that fails is reported and counted as an error. */
async function timed(call: () => Promise<unknown>): Promise<number | null> {
  const started = performance.now();
  try {
    await call();
    return performance.now() - started;
  } catch (err) {
    out(`  error: ${(err as Error).message}`);
    return null;
  }
}

async function measure(name: string, n: number, call: (i: number) => Promise<unknown>) {
  const samples: number[] = [];
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const ms = await timed(() => call(i));
    if (ms === null) errors++;
    else samples.push(ms);
  }
  return report(name + (errors ? ` (${errors} errors)` : ''), samples);
}

/** The hot webhook, as the repository stores it; returns its id. */
async function insertHotWebhook(conn: Connection, encryptionKey: Buffer): Promise<string> {
  const Webhook = webhookModel(conn);
  await Webhook.init();
  const hotOid = new mongoose.Types.ObjectId();
  await Webhook.collection.insertOne({
    _id: hotOid,
    ...OWNER,
    agent_id: '7',
    description: 'bench',
    secret_key_sealed: createSecretBox(encryptionKey).encrypt(`whsec_${randomBytes(32).toString('base64')}`),
    previous_secret_key_sealed: null,
    previous_secret_expires_at: null,
    is_active: true,
    created_at: new Date(),
    updated_at: null,
    last_triggered_at: null,
    last_trigger_success: null,
    trigger_count: 0,
  });
  return hotOid.toHexString();
}

/** The hot webhook's pages, beside the floor (the health route, a webhook read, a driver `findOne` by `_id`). */
async function measurePages(
  conn: Connection,
  schedulerUrl: string,
  key: string,
  hotId: string,
  now: number,
): Promise<void> {
  const headers = { 'x-api-key': key };
  const base = `${schedulerUrl}/agent-webhooks/${hotId}`;
  const get = async (url: string) => {
    const res = await fetch(url, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${url} → ${res.status}: ${body.slice(0, 200)}`);
    return body;
  };

  // The first list of a process that has read nothing yet.
  const t = performance.now();
  const first = JSON.parse(await get(`${base}/executions?limit=50`)) as {
    total: number;
    executions: { id: string }[];
  };
  const ids = first.executions.map((e) => new mongoose.Types.ObjectId(e.id));
  out(`first list: ${(performance.now() - t).toFixed(0)} ms, total ${first.total}`);

  for (let i = 0; i < 10; i++) await get(`${base}/executions?limit=50`); // warm-up
  out('');
  const floor = {
    health: await measure('GET /healthz (HTTP floor)', 200, () => get(`${schedulerUrl}/healthz`)),
    webhook: await measure('GET /agent-webhooks/{id} (auth + one _id lookup)', 200, () => get(base)),
    findOne: await measure('driver findOne({_id}) on executions (this process)', 200, (i) =>
      conn.collection('executions').findOne({ _id: ids[i % ids.length] }),
    ),
  };
  const hour = 3600_000;
  const newest = await measure(`GET {id}/executions?limit=50 (${HOT.toLocaleString('en')} match)`, 300, () =>
    get(`${base}/executions?limit=50`),
  );
  await measure('GET ?skip=<0..99,950>&limit=50', 60, (i) =>
    get(`${base}/executions?skip=${(i * 7919) % (HOT - 50)}&limit=50`),
  );
  await measure('GET ?from=<2 h window>&to=…&limit=50', 60, (i) =>
    get(
      `${base}/executions?from=${new Date(now - (i + 2) * 2 * hour).toISOString()}&to=${new Date(now - (i + 1) * 2 * hour).toISOString()}&limit=50`,
    ),
  );
  await measure('GET ?status=failed&limit=50 (3% match)', 20, () => get(`${base}/executions?status=failed&limit=50`));
  await measure('GET ?status=succeeded&limit=50 (96% match)', 20, () =>
    get(`${base}/executions?status=succeeded&limit=50`),
  );
  await measure('GET /agent-webhooks/executions/recent?hours=24', 10, () =>
    get(`${schedulerUrl}/agent-webhooks/executions/recent?hours=24&limit=50`),
  );
  out('');
  out(
    `newest page p50 ${(newest.p50 / floor.webhook.p50).toFixed(1)}× and p99 ${(newest.p99 / floor.webhook.p99).toFixed(1)}× a webhook read; findOne p50 ${floor.findOne.p50.toFixed(1)} ms`,
  );
}

async function main(): Promise<void> {
  const dbName = uniqueName('bench_executions');
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
    const repo = createExecutionRepository(conn);
    await repo.init(); // indexes before the rows, as a running service has them
    const hotId = await insertHotWebhook(conn, encryptionKey);
    const now = Date.now();

    const t = performance.now();
    await seed(conn, hotId, now);
    out(`seeded ${TOTAL} executions (${HOT} of one webhook) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    await refreshStatistics(conn);

    scheduler = await startServiceProcess({
      script: SCHEDULER_MAIN,
      timeoutMs: 300_000,
      env: {
        MONGODB_URI: testInfra.mongoUri,
        REDIS_URL: testInfra.redisUrl,
        MONGODB_DB: dbName,
        AUTH_DB: authDb,
        QUEUE_PREFIX: uniqueName('benchq'),
        WEBHOOK_SECRET_ENCRYPTION_KEY: encryptionKey.toString('hex'),
        SCHEDULE_SECRET_ENCRYPTION_KEY: encryptionKey.toString('hex'),
        AGENT_SERVICE_URL: 'http://127.0.0.1:9', // not asked: nothing is created over HTTP here
        LOG_LEVEL: 'info', // as `pnpm start` runs it
      },
    });
    await measurePages(conn, scheduler.url, key, hotId, now);
    out(`end: ${load()}`);
  } finally {
    await cleanup();
  }
}

runBench('executions', main);
