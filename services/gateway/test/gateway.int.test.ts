import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';
import {
  captureLogger,
  createTestDatabases,
  freePort,
  startLocalServer,
  startServiceProcess,
  testInfra,
  type LocalServer,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { createApp } from '../src/app';
import { serviceFor } from '../src/routes';

let dbs: TestDatabases;
let agent: ServiceProcess;
let echo: LocalServer; // stands in for the scheduler: records exactly what reaches it
let gateway: RunningServer;
let base: string;
let lines: string[];

beforeAll(async () => {
  dbs = await createTestDatabases('gateway');
  agent = await startServiceProcess({
    script: resolve(__dirname, '../../agent/dist/main.js'),
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: `${dbs.conn.name}_agent`,
      AUTH_DB: dbs.authDb,
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    },
  });
  echo = await startLocalServer((req, res) => {
    if (req.url.startsWith('/schedules/stream')) {
      // Three events a while apart: the gateway must pass each on as it comes, not buffer the answer.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let n = 0;
      const tick = setInterval(() => {
        res.write(`data: ${n}\n\n`);
        if (++n === 3) {
          clearInterval(tick);
          res.end();
        }
      }, 300);
      return;
    }
    res
      .writeHead(207, { 'content-type': 'application/json', 'x-upstream': 'scheduler' })
      .end(JSON.stringify({ method: req.method, url: req.url, body: req.body, id: req.headers['x-request-id'] }));
  });
  const captured = captureLogger('gateway');
  lines = captured.lines;
  const closed = await freePort();
  const app = createApp({
    logger: captured.logger,
    upstreams: { agent: new URL(agent.url), scheduler: new URL(echo.url), rag: new URL(`http://127.0.0.1:${closed}`) },
    timeoutMs: 5_000,
  });
  gateway = await listen(app, 0, undefined, '127.0.0.1');
  base = `http://127.0.0.1:${gateway.port}`;
}, 60_000);

afterAll(async () => {
  await gateway.close(1_000);
  await echo.close();
  await agent.stop();
  await dbs.conn.useDb(`${dbs.conn.name}_agent`).dropDatabase();
  await dbs.cleanup();
});

test('every routed prefix belongs to exactly one service', () => {
  expect(serviceFor('/agent-webhooks/')).toBe('scheduler');
  expect(serviceFor('/webhook-trigger/abc')).toBe('scheduler');
  expect(serviceFor('/v3/agents')).toBe('agent');
  expect(serviceFor('/v3/inference/chat/')).toBe('agent');
  expect(serviceFor('/v3/rag/')).toBe('rag');
  expect(serviceFor('/v3/train/text/')).toBe('rag');
  expect(serviceFor('/v3/trainer')).toBeUndefined();
  expect(serviceFor('/v1/rai/policies')).toBe('rai');
  expect(serviceFor('/v1/transcripts/x')).toBe('voice');
  expect(serviceFor('/v4/knowledge_graph/graph/')).toBe('graph');
  expect(serviceFor('/extract')).toBe('ocr');
  expect(serviceFor('/v3/agentsx')).toBeUndefined();
  expect(serviceFor('/')).toBeUndefined();
});

test('a client with one base URL reaches the real agent service through it (key, body, status, answer)', async () => {
  const key = await dbs.mintKey({ user_id: 'u', org_id: 'o' });
  const created = await request(base)
    .post('/v3/agents/')
    .set('x-api-key', key)
    .send({ name: 'via gateway', system_prompt: 'hi' });
  expect(created.status).toBe(201);
  const listed = await request(base).get('/v3/agents/').set('x-api-key', key);
  expect(listed.body.agents.map((a: { name: string }) => a.name)).toEqual(['via gateway']);
  expect((await request(base).get('/v3/agents/')).body).toEqual({ detail: 'API key missing' });
});

test('bytes, method, query, status and headers pass unchanged; the request id is the same on both sides', async () => {
  const raw = '{"b":1,  "a":"é"}';
  const res = await request(base)
    .patch('/schedules/x?y=1&z=%20')
    .set('content-type', 'application/json')
    .set('x-request-id', 'req-42')
    .send(raw);
  expect(res.status).toBe(207);
  expect(res.headers['x-upstream']).toBe('scheduler');
  expect(res.body).toEqual({ method: 'PATCH', url: '/schedules/x?y=1&z=%20', body: raw, id: 'req-42' });
  expect(res.headers['x-request-id']).toBe('req-42');
});

test('server-sent events reach the client as they are written', async () => {
  const res = await fetch(`${base}/schedules/stream`);
  const reader = res.body!.getReader();
  const arrivals: number[] = [];
  const started = Date.now();
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    arrivals.push(Date.now() - started);
  }
  expect(arrivals.length).toBeGreaterThanOrEqual(3);
  expect(arrivals[0]!).toBeLessThan(500); // the first event long before the last was written
  expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(400);
});

test('a path no service claims, or a service not configured, is 404 in the Error shape; an unreachable one is 503', async () => {
  expect((await request(base).get('/nope')).body).toEqual({ detail: 'Not Found' });
  expect((await request(base).get('/v1/transcripts/x')).status).toBe(404);
  const down = await request(base).get('/v3/rag/');
  expect(down.status).toBe(503);
  expect(down.body).toEqual({ detail: 'Service unavailable' });
  expect(lines.some((l) => l.includes('upstream failed') && l.includes('rag'))).toBe(true);
  expect((await request(base).get('/healthz')).status).toBe(200);
});

test('/v3/rag and /v3/train reach the rag service; an API key in the path is never logged or counted here', async () => {
  const rag = await startLocalServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url, body: req.json }));
  });
  const captured = captureLogger('gateway');
  const app = createApp({ logger: captured.logger, upstreams: { rag: new URL(rag.url) }, timeoutMs: 5_000 });
  const server = await listen(app, 0, undefined, '127.0.0.1');
  const via = `http://127.0.0.1:${server.port}`;
  try {
    const train = await request(via)
      .post(`/v3/train/text/?rag_id=${'a'.repeat(24)}`)
      .send({ data: [{ text: 'Zylotech makes lanterns.', source: 'notes' }] });
    expect(train.status).toBe(200);
    expect(train.body).toEqual({
      url: `/v3/train/text/?rag_id=${'a'.repeat(24)}`,
      body: { data: [{ text: 'Zylotech makes lanterns.', source: 'notes' }] },
    });
    expect((await request(via).post('/v3/train/pdf/?rag_id=x').send({})).body.url).toBe('/v3/train/pdf/?rag_id=x');
    const key = await dbs.mintKey({ user_id: 'sdk', org_id: 'o' });
    const listed = await request(via).get(`/v3/rag/user/${key}/`).set('x-api-key', key);
    expect(listed.body.url).toBe(`/v3/rag/user/${key}/`);
    expect(rag.requests.map((r) => r.url.split('?')[0])).toEqual([
      '/v3/train/text/',
      '/v3/train/pdf/',
      `/v3/rag/user/${key}/`,
    ]);
    expect(captured.lines.some((l) => l.includes('/v3/rag/user/'))).toBe(true);
    expect(captured.lines.join('\n')).not.toContain(key.slice(3));
    expect((await request(via).get('/metrics')).text).not.toContain(key.slice(3));
  } finally {
    await server.close(1_000);
    await rag.close();
  }
});
