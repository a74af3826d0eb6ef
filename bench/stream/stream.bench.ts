/**
 * Streaming chat: time to first byte and latency added per delta by POST /v3/inference/stream/ of the real agent
 * process, beside the same client reading the provider stand-in's stream directly (the floor: loopback, HTTP, SSE
 * parsing). The stand-in (in this process) stamps each delta with the moment it wrote it, and the client (also in
 * this process) reads the stamp when the delta arrives, so both ends use one clock.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { resolve } from 'node:path';

import { createApiKeyRepository } from '@platform/auth';
import { connectMongo } from '@platform/db';
import { freePort, startServiceProcess, testInfra, uniqueName, type ServiceProcess } from '@platform/testing';

import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 200);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 20);
const GAP_MS = Number(process.env.BENCH_DELTA_GAP_MS ?? 5);
const AGENT_MAIN = resolve(__dirname, '../../../../services/agent/dist/main.js'); // from bench/dist/bench/stream

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An OpenAI-protocol provider that streams DELTAS deltas GAP_MS apart, each carrying the time it was written. */
function startProvider(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      void (async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const chunk = (delta: object, finish: string | null = null) =>
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.write(chunk({ role: 'assistant', content: '' }));
        for (let i = 0; i < DELTAS; i++) {
          if (i > 0) await sleep(GAP_MS);
          res.write(chunk({ content: `<${performance.now().toFixed(3)}>` }));
        }
        res.write(chunk({}, 'stop'));
        res.end('data: [DONE]\n\n');
      })();
    });
  });
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done({ server, port: (server.address() as { port: number }).port })),
  );
}

interface StreamTimes {
  ttfb: number;
  /** Per delta: arrival minus the moment the provider wrote it. */
  lags: number[];
}

/** POSTs and reads server-sent events as they arrive; finds the provider's stamps in whatever wraps them. */
function timeStream(port: number, path: string, headers: Record<string, string>, body: unknown): Promise<StreamTimes> {
  return new Promise((resolveTimes, reject) => {
    const started = performance.now();
    let ttfb = NaN;
    const lags: number[] = [];
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', ...headers } },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200) reject(new Error(`${path} → ${res.statusCode}`));
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (text: string) => {
          const now = performance.now();
          buffer += text;
          const events = buffer.split('\n\n');
          buffer = events.pop() ?? '';
          for (const e of events) {
            const stamp = /<(\d+\.\d+)>/.exec(e);
            if (!stamp) continue;
            if (Number.isNaN(ttfb)) ttfb = now - started;
            lags.push(now - Number(stamp[1]));
          }
        });
        res.on('end', () =>
          lags.length === DELTAS
            ? resolveTimes({ ttfb, lags })
            : reject(new Error(`${path}: ${lags.length} of ${DELTAS} deltas`)),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function series(name: string, run: () => Promise<StreamTimes>) {
  for (let i = 0; i < 10; i++) await run(); // warm-up
  const ttfbs: number[] = [];
  const lags: number[] = [];
  for (let i = 0; i < STREAMS; i++) {
    const t = await run();
    ttfbs.push(t.ttfb);
    lags.push(...t.lags);
  }
  const r = {
    ttfb50: percentile(ttfbs, 50),
    ttfb99: percentile(ttfbs, 99),
    lag50: percentile(lags, 50),
    lag99: percentile(lags, 99),
  };
  const f = (x: number) => x.toFixed(2).padStart(7);
  out(
    `${name.padEnd(44)} TTFB p50 ${f(r.ttfb50)} ms p99 ${f(r.ttfb99)} ms   delta lag p50 ${f(r.lag50)} ms p99 ${f(r.lag99)} ms`,
  );
  return r;
}

async function main(): Promise<void> {
  const dbName = uniqueName('bench_stream');
  const authDb = `${dbName}_auth`;
  const authConn = await connectMongo({ uri: testInfra.mongoUri, dbName: authDb, serverSelectionTimeoutMS: 5000 });
  const provider = await startProvider();
  let agent: ServiceProcess | undefined;
  const cleanup = async () => {
    await agent?.stop();
    provider.server.close();
    const conn = await connectMongo({ uri: testInfra.mongoUri, dbName, serverSelectionTimeoutMS: 5000 });
    await conn.dropDatabase().catch(() => undefined);
    await authConn.dropDatabase().catch(() => undefined);
    await Promise.all([conn.close(), authConn.close()]);
  };
  out(`start: ${machineLoad()}; ${STREAMS} streams of ${DELTAS} deltas, ${GAP_MS} ms apart`);
  try {
    const keys = createApiKeyRepository(authConn);
    await keys.init();
    const { key } = await keys.create({ user_id: 'bench-user', org_id: 'bench-org' }, 'bench');
    agent = await startServiceProcess({
      script: AGENT_MAIN,
      port: await freePort(),
      timeoutMs: 60_000,
      env: {
        MONGODB_URI: testInfra.mongoUri,
        MONGODB_DB: dbName,
        AUTH_DB: authDb,
        REDIS_URL: testInfra.redisUrl,
        CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${provider.port}`,
        LOG_LEVEL: 'warn',
      },
    });
    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${agent!.url}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`${path} → ${res.status}: ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    const cred = await api('/v3/providers/credentials', {
      name: 'local',
      provider_id: 'openai',
      credentials: { api_key: 'sk-bench', base_url: `http://127.0.0.1:${provider.port}/v1` },
    });
    const created = await api('/v3/agents/', {
      name: 'bench',
      description: 'stream bench',
      agent_role: 'assistant',
      agent_goal: 'answer',
      agent_instructions: 'answer',
      provider_id: 'openai',
      model: 'gpt-4o-mini',
      temperature: 0,
      llm_credential_id: cred.credential_id,
      features: [],
      tools: [],
    });
    const chat = { agent_id: String(created.id), session_id: 'bench', message: 'stream please' };

    const direct = await series('provider stream read directly (floor)', () =>
      timeStream(provider.port, '/v1/chat/completions', {}, { model: 'x', stream: true, messages: [] }),
    );
    const ours = await series('POST /v3/inference/stream/ (agent process)', () =>
      timeStream(agent!.port, '/v3/inference/stream/', { 'x-api-key': key }, chat),
    );
    out(
      `\nadded by the agent service: TTFB p50 ${(ours.ttfb50 - direct.ttfb50).toFixed(2)} ms, p99 ${(ours.ttfb99 - direct.ttfb99).toFixed(2)} ms; ` +
        `per delta p50 ${(ours.lag50 - direct.lag50).toFixed(2)} ms, p99 ${(ours.lag99 - direct.lag99).toFixed(2)} ms`,
    );
    out(`end: ${machineLoad()}`);
  } finally {
    await cleanup();
  }
}

runBench('stream', main);
