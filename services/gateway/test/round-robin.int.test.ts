import { createServer, type Server } from 'node:net';

import { listen, type RunningServer } from '@platform/http';
import { captureLogger, freePort, startLocalServer, type LocalServer } from '@platform/testing';

import { createApp } from '../src/app';
import { configSchema, upstreamList } from '../src/config';

/** Two replicas of one service: each answers with its own name and records what reached it. */
let a: LocalServer;
let b: LocalServer;
const servers: RunningServer[] = [];

beforeAll(async () => {
  const replica = (name: string) =>
    startLocalServer((req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ replica: name, method: req.method, body: req.body }));
    });
  a = await replica('a');
  b = await replica('b');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close(1_000)));
  await a.close();
  await b.close();
});

async function gateway(agent: URL[]): Promise<{ base: string; lines: string[] }> {
  const captured = captureLogger('gateway');
  const server = await listen(
    createApp({ logger: captured.logger, upstreams: { agent }, timeoutMs: 5_000 }),
    0,
    undefined,
    '127.0.0.1',
  );
  servers.push(server);
  return { base: `http://127.0.0.1:${server.port}`, lines: captured.lines };
}

async function call(base: string, method = 'GET', body?: string) {
  const res = await fetch(`${base}/v3/agents/`, {
    method,
    body,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  return { status: res.status, body: (await res.json()) as { replica?: string; body?: string; detail?: string } };
}

test('a comma-separated <SERVICE>_URL is a list of base URLs; anything but http(s) URLs is refused', () => {
  expect(upstreamList(' http://a:1, http://b:2/ ,').map((u) => u.origin)).toEqual(['http://a:1', 'http://b:2']);
  expect(configSchema.validate({ AGENT_URL: 'http://a:1,http://b:2' }).error).toBeUndefined();
  expect(configSchema.validate({ AGENT_URL: 'http://a:1' }).error).toBeUndefined();
  expect(configSchema.validate({ AGENT_URL: 'http://a:1,ftp://b:2' }).error).toBeDefined();
  expect(configSchema.validate({ AGENT_URL: 'http://a:1,not a url' }).error).toBeDefined();
  expect(configSchema.validate({ AGENT_URL: ',' }).error).toBeDefined();
});

test('requests go to the replicas in turn, bodies intact', async () => {
  const { base } = await gateway([new URL(a.url), new URL(b.url)]);
  const answers = [];
  for (let i = 0; i < 6; i++) answers.push(await call(base, 'POST', JSON.stringify({ i })));
  expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  expect(answers.map((r) => r.body.replica)).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
  expect(answers.map((r) => JSON.parse(r.body.body!) as { i: number })).toEqual([0, 1, 2, 3, 4, 5].map((i) => ({ i })));
});

test('a replica refusing connections is skipped: every request, of any method, is answered once by the other', async () => {
  const down = new URL(`http://127.0.0.1:${await freePort()}`);
  const before = b.requests.length;
  const { base, lines } = await gateway([down, new URL(b.url)]);
  const answers = [];
  for (let i = 0; i < 6; i++) answers.push(await call(base, i % 2 ? 'GET' : 'POST', i % 2 ? undefined : `{"n":${i}}`));
  expect(answers.map((r) => [r.status, r.body.replica])).toEqual(Array.from({ length: 6 }, () => [200, 'b']));
  expect(answers.filter((_, i) => i % 2 === 0).map((r) => r.body.body)).toEqual(['{"n":0}', '{"n":2}', '{"n":4}']);
  expect(b.requests.length - before).toBe(6); // each request reached it exactly once
  expect(lines.filter((l) => l.includes('upstream failed') && l.includes(down.origin)).length).toBe(3);
});

test('every replica down → 503; a replica that drops the connection after the request was sent is not retried → 502', async () => {
  const { base: none } = await gateway([
    new URL(`http://127.0.0.1:${await freePort()}`),
    new URL(`http://127.0.0.1:${await freePort()}`),
  ]);
  expect(await call(none)).toEqual({ status: 503, body: { detail: 'Service unavailable' } });

  // Accepts the connection, reads the request, closes without answering.
  let received = 0;
  const dropper: Server = createServer((socket) => {
    socket.once('data', () => {
      received++;
      socket.destroy();
    });
  });
  await new Promise<void>((r) => dropper.listen(0, '127.0.0.1', r));
  const port = (dropper.address() as { port: number }).port;
  try {
    const before = b.requests.length;
    const { base } = await gateway([new URL(`http://127.0.0.1:${port}`), new URL(b.url)]);
    expect(await call(base, 'POST', '{"once":true}')).toEqual({ status: 502, body: { detail: 'Bad gateway' } });
    expect(received).toBe(1);
    expect(b.requests.length).toBe(before); // not sent again to the other replica
    expect((await call(base)).body.replica).toBe('b'); // the next turn is the other replica's
  } finally {
    await new Promise((r) => dropper.close(r));
  }
});
