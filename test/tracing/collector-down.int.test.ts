/**
 * A trace collector that is away never fails or holds up a request: spans the collector does not take are dropped
 * and counted on /metrics. Two ways to be away: nothing listens (connections refused), and a collector that takes
 * the connection and never answers (the exporter's time limit ends each export). A bad tracing variable stops the
 * service at start with the reason.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { resolve } from 'node:path';

import {
  createTestDatabases,
  eventually,
  freePort,
  startServiceProcess,
  testInfra,
  type TestDatabases,
} from '@platform/testing';

const RAI_MAIN = resolve(__dirname, '../../services/rai/dist/main.js');
let dbs: TestDatabases;
let key: string;
let silent: Server;
const sockets = new Set<Socket>();

beforeAll(async () => {
  dbs = await createTestDatabases('trace_down');
  key = await dbs.mintKey({ user_id: 'ops', org_id: 'acme' });
  // Takes every connection and never answers.
  silent = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent.close(r));
  await dbs.cleanup();
});

async function startRai(endpoint: string) {
  return startServiceProcess({
    script: RAI_MAIN,
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: dbs.conn.name,
      AUTH_DB: dbs.authDb,
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_EXPORTER_OTLP_TIMEOUT: '300',
    },
  });
}

/** The sum of a counter's samples in a Prometheus text page. */
const counter = (page: string, name: string) =>
  page
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);

describe.each([
  ['refused', async () => `http://127.0.0.1:${await freePort()}`],
  ['silent', () => Promise.resolve(`http://127.0.0.1:${(silent.address() as { port: number }).port}`)],
])('a collector that is away (%s)', (_how, endpoint) => {
  it('answers every request, and counts the spans it dropped', async () => {
    const rai = await startRai(await endpoint());
    try {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${rai.url}/v1/rai/policies`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `policy ${i}` }),
          signal: AbortSignal.timeout(5_000),
        });
        expect(res.status).toBe(201);
      }
      const page = await eventually('the dropped spans counted', async () => {
        const text = await (await fetch(`${rai.url}/metrics`)).text();
        return counter(text, 'tracing_spans_dropped_total') >= 20 ? text : undefined;
      });
      expect(counter(page, 'tracing_spans_exported_total')).toBe(0);
      expect(page).toMatch(/tracing_spans_dropped_total\{reason="[^"]+",service="rai"\} \d+/);
    } finally {
      await rai.stop(5_000);
    }
  }, 60_000);
});

it('a tracing variable it cannot use stops the service at start, saying which', async () => {
  await expect(
    startServiceProcess({
      script: RAI_MAIN,
      env: {
        MONGODB_URI: testInfra.mongoUri,
        MONGODB_DB: dbs.conn.name,
        AUTH_DB: dbs.authDb,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_TRACES_SAMPLER: 'sometimes',
      },
      timeoutMs: 10_000,
    }),
  ).rejects.toThrow(/rai: failed to start: OTEL_TRACES_SAMPLER must be one of/);
});
