/**
 * Transcripts at scale: BENCH_TRANSCRIPTS (1,000,000) summaries of one organization over BENCH_DAYS (365) days,
 * BENCH_AGENT_CALLS (100,000) of them one agent's, seeded straight into a fresh database with their agents' running
 * totals; then sequential keep-alive requests (BENCH_SAMPLES each, 200) to the real voice process for pages and stats,
 * beside the HTTP floor.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';

import { createApiKeyRepository } from '@platform/auth';
import { connectMongo, mongoose, refreshStatistics, syncIndexes } from '@platform/db';
import { startServiceProcess, testInfra, uniqueName, type ServiceProcess } from '@platform/testing';

import { agentTotalsId, transcriptModels } from '../../services/voice/src/transcripts/transcript.model';
import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';

const TOTAL = Number(process.env.BENCH_TRANSCRIPTS ?? 1_000_000);
const HOT = Number(process.env.BENCH_AGENT_CALLS ?? 100_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 365);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const OTHER_AGENTS = 20;
const BATCH = 2_000;
const ORG = 'bench-org';
const VOICE_MAIN = resolve(__dirname, '../../../../services/voice/dist/main.js'); // from bench/dist/bench/voice

/** The i-th transcript summary as the service stores it (counted), and each agent's running totals of them. */
function seedDocs(now: number) {
  const span = DAYS * 86_400_000;
  const totals = new Map<string, { _id: string; calls: number; messages: number; duration_ms: number }>();
  const every = Math.max(1, Math.round(TOTAL / HOT));
  let hot = 0;
  const docAt = (i: number) => {
    const started = new Date(now - span + Math.floor((i * span) / TOTAL));
    const agent = i % every === 0 && hot++ < HOT ? 'hot-agent' : `agent-${i % OTHER_AGENTS}`;
    const messages = 4 + (i % 17);
    const duration = 30_000 + (i % 600) * 1000;
    const _id = agentTotalsId(ORG, agent);
    const t = totals.get(_id) ?? { _id, calls: 0, messages: 0, duration_ms: 0 };
    totals.set(_id, {
      _id,
      calls: t.calls + 1,
      messages: t.messages + messages,
      duration_ms: t.duration_ms + duration,
    });
    const ended = new Date(started.getTime() + duration);
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
      ended_at: ended,
      created_at: ended,
      updated_at: ended,
      fingerprint: 'bench',
      tallied: true,
    };
  };
  return { docAt, totals };
}

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
  out(
    `start: ${machineLoad()}; ${TOTAL.toLocaleString('en')} transcripts over ${DAYS} days, ${HOT.toLocaleString('en')} of one agent`,
  );
  try {
    const keys = createApiKeyRepository(authConn);
    await keys.init();
    const { key } = await keys.create({ user_id: 'bench-user', org_id: ORG }, 'bench');
    const { Transcript, AgentTotals } = transcriptModels(conn);
    await syncIndexes(conn); // indexes before the rows, as a running service has them
    const now = Date.now();
    const { docAt, totals } = seedDocs(now);
    let t = performance.now();
    for (let i = 0; i < TOTAL; i += BATCH) {
      await Transcript.collection.insertMany(
        Array.from({ length: Math.min(BATCH, TOTAL - i) }, (_, j) => docAt(i + j)),
        { ordered: false },
      );
    }
    await AgentTotals.insertMany([...totals.values()]);
    out(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    await refreshStatistics(conn);

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
    for (let i = 0; i < 5; i++) await get('/v1/transcripts?limit=50'); // warm-up
    const day = 86_400_000;
    const n = SAMPLES;
    await measure('GET /healthz (HTTP floor)', 200, () => get('/healthz'));
    const page = await measure(`GET /v1/transcripts?limit=50 (${TOTAL.toLocaleString('en')} match)`, n, () =>
      get('/v1/transcripts?limit=50'),
    );
    await measure('GET ?sort=asc&limit=50', n, () => get('/v1/transcripts?sort=asc&limit=50'));
    await measure('GET ?offset=<0..TOTAL>&limit=50', n, (i) =>
      get(`/v1/transcripts?limit=50&offset=${(i * 7919) % TOTAL}`),
    );
    const agentPage = await measure(`GET ?agentId=hot-agent&limit=50 (${HOT.toLocaleString('en')} match)`, n, () =>
      get('/v1/transcripts?agentId=hot-agent&limit=50'),
    );
    await measure('GET ?from=<day d 06:00>&to=<day d+2 18:00>&limit=50', n, (i) => {
      const from = now - ((i % (DAYS - 3)) + 3) * day + 6 * 3_600_000;
      return get(
        `/v1/transcripts?limit=50&from=${new Date(from).toISOString()}&to=${new Date(from + 2.5 * day).toISOString()}`,
      );
    });
    const stats = await measure(
      `GET /v1/transcripts/agent/hot-agent/stats (${HOT.toLocaleString('en')} calls)`,
      n,
      () => get('/v1/transcripts/agent/hot-agent/stats'),
    );
    out(
      `\nlist page p99 ${page.p99.toFixed(1)} ms over ${TOTAL.toLocaleString('en')}, ` +
        `${agentPage.p99.toFixed(1)} ms over ${HOT.toLocaleString('en')} ` +
        '(development store target: ≤ 2,000 ms over 10,000); ' +
        `agent stats p99 ${stats.p99.toFixed(1)} ms (target ≤ 200)`,
    );
    out(`end: ${machineLoad()}`);
  } finally {
    await cleanup();
  }
}

runBench('voice', main);
