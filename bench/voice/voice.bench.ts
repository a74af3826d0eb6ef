/**
 * Transcripts at scale: BENCH_TRANSCRIPTS (1,000,000) summaries of one organization over BENCH_DAYS (365) days,
 * BENCH_AGENT_CALLS (100,000) of them one agent's, seeded straight into a fresh database with their tallies; then
 * sequential keep-alive requests to the real voice process for pages and stats, beside the HTTP floor.
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';

import { createApiKeyRepository } from '@platform/auth';
import { analyzeLookupTables, connectMongo, mongoose, syncIndexes } from '@platform/db';
import { startServiceProcess, testInfra, uniqueName, type ServiceProcess } from '@platform/testing';

import {
  agentBucketKey,
  bucketOf,
  dayOf,
  dayTallyId,
  orgBucketKey,
  tallyId,
} from '../../services/voice/src/transcripts/transcript.buckets';
import { transcriptModels, type TallyDoc } from '../../services/voice/src/transcripts/transcript.model';
import { runBench } from '../kit/bench-kit';

const TOTAL = Number(process.env.BENCH_TRANSCRIPTS ?? 1_000_000);
const HOT = Number(process.env.BENCH_AGENT_CALLS ?? 100_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 365);
const OTHER_AGENTS = 20;
const BATCH = 2_000;
const ORG = 'bench-org';
const VOICE_MAIN = resolve(__dirname, '../../../../services/voice/dist/main.js'); // from bench/dist/bench/voice

const out = (line: string) => process.stdout.write(`${line}\n`);

function seedDocs(now: number) {
  const span = DAYS * 86_400_000;
  const tallies = new Map<string, TallyDoc>();
  const count = (id: string, key: number, messages: number, duration: number) => {
    const t = tallies.get(id) ?? { _id: id, calls: 0, messages: 0, duration_ms: 0, counts: {} };
    t.calls++;
    t.messages += messages;
    t.duration_ms += duration;
    t.counts[key] = (t.counts[key] ?? 0) + 1;
    tallies.set(id, t);
  };
  const every = Math.max(1, Math.round(TOTAL / HOT));
  let hot = 0;
  const docAt = (i: number) => {
    const started = new Date(now - span + Math.floor((i * span) / TOTAL));
    const agent = i % every === 0 && hot++ < HOT ? 'hot-agent' : `agent-${i % OTHER_AGENTS}`;
    const bucket = bucketOf(started);
    const day = dayOf(started);
    const messages = 4 + (i % 17);
    const duration = 30_000 + (i % 600) * 1000;
    count(tallyId(ORG), day, messages, duration);
    count(tallyId(ORG, agent), day, messages, duration);
    count(dayTallyId(ORG, day), bucket, messages, duration);
    count(dayTallyId(ORG, day, agent), bucket, messages, duration);
    return {
      _id: new mongoose.Types.ObjectId(),
      session_id: randomUUID(),
      org_id: ORG,
      user_id: 'bench-user',
      agent_id: agent,
      room_name: `room-${i}`,
      close_reason: 'participant_disconnected',
      duration_ms: duration,
      message_count: messages,
      started_at: started,
      ended_at: new Date(started.getTime() + duration),
      created_at: new Date(started.getTime() + duration),
      updated_at: new Date(started.getTime() + duration),
      fingerprint: 'bench',
      tallied: true,
      org_bucket: orgBucketKey(ORG, bucket),
      agent_bucket: agentBucketKey(ORG, agent, bucket),
    };
  };
  return { docAt, tallies };
}

const percentile = (s: number[], p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;

async function measure(
  name: string,
  n: number,
  call: (i: number) => Promise<unknown>,
): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const r = { p50: percentile(samples, 50), p99: percentile(samples, 99) };
  const f = (x: number) => x.toFixed(1).padStart(7);
  out(
    `${name.padEnd(60)} n=${String(n).padStart(4)}  p50 ${f(r.p50)} ms  p99 ${f(r.p99)} ms  max ${f(samples.at(-1) ?? NaN)} ms`,
  );
  return r;
}

async function main(): Promise<void> {
  const dbName = uniqueName('bench_voice');
  const authDb = `${dbName}_auth`;
  const conn = await connectMongo({ uri: testInfra.mongoUri, dbName, serverSelectionTimeoutMS: 5000 });
  const authConn = await connectMongo({ uri: testInfra.mongoUri, dbName: authDb, serverSelectionTimeoutMS: 5000 });
  let voice: ServiceProcess | undefined;
  const cleanup = async () => {
    await voice?.stop();
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
  out(
    `start: ${load()}; ${TOTAL.toLocaleString('en')} transcripts over ${DAYS} days, ${HOT.toLocaleString('en')} of one agent`,
  );
  try {
    const keys = createApiKeyRepository(authConn);
    await keys.init();
    const { key } = await keys.create({ user_id: 'bench-user', org_id: ORG }, 'bench');
    const { Transcript, Tally } = transcriptModels(conn);
    await syncIndexes(conn); // indexes (and FerretDB's GIN indexes) before the rows, as a running service has them
    const now = Date.now();
    const { docAt, tallies } = seedDocs(now);
    let t = performance.now();
    for (let i = 0; i < TOTAL; i += BATCH) {
      await Transcript.collection.insertMany(
        Array.from({ length: Math.min(BATCH, TOTAL - i) }, (_, j) => docAt(i + j)),
        { ordered: false },
      );
    }
    const all = [...tallies.values()];
    for (let i = 0; i < all.length; i += BATCH) await Tally.insertMany(all.slice(i, i + BATCH));
    out(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    await analyzeLookupTables(conn);

    voice = await startServiceProcess({
      script: VOICE_MAIN,
      timeoutMs: 300_000,
      env: { MONGODB_URI: testInfra.mongoUri, MONGODB_DB: dbName, AUTH_DB: authDb, LOG_LEVEL: 'warn' },
    });
    const base = voice.url;
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path} → ${res.status}: ${body.slice(0, 200)}`);
      return body;
    };
    t = performance.now();
    const first = JSON.parse(await get('/v1/transcripts?limit=50')) as { total: number };
    out(`first page: ${(performance.now() - t).toFixed(0)} ms, total ${first.total}`);
    for (let i = 0; i < 20; i++) await get('/v1/transcripts?limit=50'); // warm-up
    const day = 86_400_000;
    await measure('GET /healthz (HTTP floor)', 200, () => get('/healthz'));
    const page = await measure(`GET /v1/transcripts?limit=50 (${TOTAL.toLocaleString('en')} match)`, 300, () =>
      get('/v1/transcripts?limit=50'),
    );
    await measure('GET ?sort=asc&limit=50', 200, () => get('/v1/transcripts?sort=asc&limit=50'));
    await measure('GET ?offset=<0..TOTAL>&limit=50', 200, (i) =>
      get(`/v1/transcripts?limit=50&offset=${(i * 7919) % TOTAL}`),
    );
    await measure('GET ?agentId=hot-agent&limit=50', 200, () => get('/v1/transcripts?agentId=hot-agent&limit=50'));
    await measure('GET ?from=<day d 06:00>&to=<day d+2 18:00>&limit=50', 200, (i) => {
      const from = now - ((i % (DAYS - 3)) + 3) * day + 6 * 3_600_000;
      return get(
        `/v1/transcripts?limit=50&from=${new Date(from).toISOString()}&to=${new Date(from + 2.5 * day).toISOString()}`,
      );
    });
    const stats = await measure(
      `GET /v1/transcripts/agent/hot-agent/stats (${HOT.toLocaleString('en')} calls)`,
      300,
      () => get('/v1/transcripts/agent/hot-agent/stats'),
    );
    out(
      `\nlist page p99 ${page.p99.toFixed(1)} ms (target ≤ 20); agent stats p99 ${stats.p99.toFixed(1)} ms (target ≤ 200)`,
    );
    out(`end: ${load()}`);
  } finally {
    await cleanup();
  }
}

runBench('voice', main);
