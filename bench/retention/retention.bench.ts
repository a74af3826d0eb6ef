/**
 * Execution retention: does intake hold as the executions collection reaches its steady size? Intake here is the
 * trigger's store path, `createExecutionRepository(conn).create` as the trigger route calls it (group commit), by
 * BENCH_CONCURRENCY loops over BENCH_WEBHOOKS webhooks for BENCH_INTAKE_SECONDS, measured twice in fresh databases:
 *   1. on an empty collection;
 *   2. at steady size: BENCH_RETENTION_STEADY ended executions already stored over the last BENCH_RETENTION_DAYS
 *      days and BENCH_RETENTION_PAST_HOURS more (by default a third of the window: a quarter of the runs past it,
 *      as a collection holds them when retention is first set on it), with the retention TTL index set
 *      (libs/scheduling execution.retention.ts) and the server removing what expires beside the intake
 *      (BENCH_RETENTION_SWEEP=0: no TTL index, to see the size's share apart from the removal's).
 * Prints runs/s, p50 and p99 of one `create`, the runs removed meanwhile and the collection's size, and the ratio of
 * the two intakes.
 */
import { connectMongo, expireNow, refreshStatistics, type Connection } from '@platform/db';
import { createExecutionRepository, ensureExecutionRetention } from '@platform/scheduling';
import { testInfra, uniqueName } from '@platform/testing';

import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';
import { executionDoc } from '../kit/executions';

const STEADY = Number(process.env.BENCH_RETENTION_STEADY ?? 300_000);
const DAYS = Number(process.env.BENCH_RETENTION_DAYS ?? 30);
const SECONDS = Number(process.env.BENCH_INTAKE_SECONDS ?? 30);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 200);
/**
 * Hours of runs past the window when intake starts: the sweep's backlog. Default a third of the window (catching up);
 * 1 is the steady state, where an hour of runs leaves the window each hour.
 */
const PAST_HOURS = Number(process.env.BENCH_RETENTION_PAST_HOURS ?? (DAYS * 24) / 3);
/** 0: the steady phase runs without the TTL index (the collection's size alone). */
const SWEEP = process.env.BENCH_RETENTION_SWEEP !== '0';
const DAY = 24 * 3600_000;

const owner = (w: number) => ({ user_id: `bench-${w % 20}`, org_id: 'bench-org' });
const webhookId = (w: number) => (w + 1).toString(16).padStart(24, '0');

async function withDatabase<T>(prefix: string, body: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await connectMongo({
    uri: testInfra.mongoUri,
    dbName: uniqueName(prefix),
    serverSelectionTimeoutMS: 5000,
  });
  try {
    return await body(conn);
  } finally {
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
  }
}

/** `STEADY` ended runs of the webhooks over the last DAYS × 4/3 days, as the repository stores them, oldest first. */
async function seed(conn: Connection, now: number): Promise<void> {
  const span = DAYS * DAY + PAST_HOURS * 3_600_000;
  const seqs = new Array<number>(WEBHOOKS).fill(0);
  const coll = conn.collection('executions');
  for (let i = 0; i < STEADY; i += 1000) {
    const docs = Array.from({ length: Math.min(1000, STEADY - i) }, (_, j) => {
      const w = (i + j) % WEBHOOKS;
      const at = new Date(now - span + Math.floor(((i + j) * span) / STEADY));
      return executionDoc(webhookId(w), owner(w), seqs[w]!++, at);
    });
    await coll.insertMany(docs, { ordered: false });
  }
}

interface Intake {
  runs: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** CONCURRENCY loops storing runs as the trigger route does, for SECONDS. */
async function intake(conn: Connection): Promise<Intake> {
  const repo = createExecutionRepository(conn);
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const w = n++ % WEBHOOKS;
        const t = performance.now();
        try {
          await repo.create(
            { kind: 'webhook', webhook_id: webhookId(w), agent_id: '7', ...owner(w), payload: { n }, max_attempts: 3 },
            new Date(),
          );
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    runs: latencies.length,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

const line = (name: string, r: Intake) =>
  out(
    `${name.padEnd(44)} ${r.perSecond.toFixed(0).padStart(6)} runs/s  p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99
      .toFixed(1)
      .padStart(7)} ms  (${r.runs} runs${r.errors ? `, ${r.errors} errors` : ''})`,
  );

async function main(): Promise<void> {
  out(`start: ${machineLoad()}`);
  out(
    `intake: ${CONCURRENCY} loops over ${WEBHOOKS} webhooks for ${SECONDS} s; steady size ${STEADY} runs, window ${DAYS} days, ` +
      `${PAST_HOURS} hours past it, TTL index ${SWEEP ? 'on' : 'off'}`,
  );

  const empty = await withDatabase('bench_retention_empty', async (conn) => {
    await createExecutionRepository(conn).init();
    return intake(conn);
  });
  line('empty collection', empty);

  const steady = await withDatabase('bench_retention_steady', async (conn) => {
    const repo = createExecutionRepository(conn);
    await repo.init(); // indexes before the rows, as a running service has them
    const now = Date.now();
    let t = performance.now();
    await seed(conn, now);
    await refreshStatistics(conn);
    const past = Math.floor((STEADY * PAST_HOURS) / (DAYS * 24 + PAST_HOURS));
    out(`seeded ${STEADY} runs (~${past} past the window) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const before = await conn.collection('executions').estimatedDocumentCount();
    if (SWEEP) await ensureExecutionRetention(conn, DAYS);
    // The server's TTL monitor runs once a minute (on the development server, the adapter's sweep does as often):
    // what has expired is removed beside the intake, a minute's worth at a time.
    t = performance.now();
    const r = await intake(conn);
    if (SWEEP) await expireNow(conn);
    const after = await conn.collection('executions').estimatedDocumentCount();
    const removed = before + r.runs - after;
    out(
      `removal beside intake: ${removed} runs removed, ${((removed / (performance.now() - t)) * 1000).toFixed(0)} runs/s; ` +
        `${after} runs stored after`,
    );
    return r;
  });
  line(SWEEP ? 'steady size, expiring' : 'steady size, no TTL index', steady);
  out(`steady / empty intake: ${(steady.perSecond / empty.perSecond).toFixed(2)}`);
  out(`end: ${machineLoad()}`);
}

runBench('retention', main);
