import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import express from 'express';

import { createHttpApp, listen, type RunningServer } from '@platform/http';
import { captureLogger } from '@platform/testing';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on its own connection (no keep-alive pool), resolving with the reply or rejecting on a socket error. */
function get(port: number, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function start() {
  const cap = captureLogger('shutdown-test');
  let slowStarted!: () => void;
  const slowStartedP = new Promise<void>((r) => (slowStarted = r));
  // The slow request answers when the test lets it (not after a delay, which a loaded machine can outlast).
  let releaseSlow!: () => void;
  const released = new Promise<void>((r) => (releaseSlow = r));
  let hangStarted!: () => void;
  const hangStartedP = new Promise<void>((r) => (hangStarted = r));
  const routes = express.Router();
  routes.get('/fast', (_req, res) => {
    res.json({ ok: true });
  });
  routes.get('/slow', async (_req, res) => {
    slowStarted();
    await released;
    res.json({ slow: 'done' });
  });
  routes.get('/hang', () => {
    hangStarted();
    // never answers
  });
  const { app } = createHttpApp({ service: 'shutdown-test', logger: cap.logger, routes });
  return { app, lines: cap.lines, slowStartedP, hangStartedP, releaseSlow };
}

describe('listen() / close()', () => {
  let running: RunningServer | undefined;

  afterEach(async () => {
    if (running?.server.listening) await running.close(0);
    running = undefined;
  });

  test('listen(0) picks a free port, serves, and logs it', async () => {
    const { app, lines } = start();
    const serverLog = captureLogger('server');
    running = await listen(app, 0, serverLog.logger, '127.0.0.1');
    expect(running.port).toBeGreaterThan(0);
    expect(running.server.listening).toBe(true);
    const res = await get(running.port, '/fast');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true });
    const listening = serverLog.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.message === 'listening');
    expect(listening?.port).toBe(running.port);
    expect(lines.some((l) => (JSON.parse(l) as { path?: string }).path === '/fast')).toBe(true);
  });

  test('an in-flight slow request completes with 200 after close(); new connections are refused', async () => {
    const { app, slowStartedP, releaseSlow } = start();
    const srv = await listen(app, 0, undefined, '127.0.0.1');
    running = srv;
    const slow = get(srv.port, '/slow');
    await slowStartedP;

    const t0 = Date.now();
    const closing = srv.close(5_000);
    let closed = false;
    void closing.then(() => (closed = true));

    // the listener is gone at once: a new connection is refused
    await expect(get(srv.port, '/fast')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await sleep(50);
    expect(closed).toBe(false); // close() waits for the request in flight
    releaseSlow();

    const res = await slow;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ slow: 'done' });

    await closing;
    expect(closed).toBe(true);
    // close waited for the request, but not for the whole grace period
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(srv.server.listening).toBe(false);
  });

  test('close() with nothing in flight resolves promptly', async () => {
    const { app } = start();
    const srv = await listen(app, 0, undefined, '127.0.0.1');
    running = srv;
    expect((await get(srv.port, '/fast')).status).toBe(200);
    const t0 = Date.now();
    await srv.close(10_000);
    expect(Date.now() - t0).toBeLessThan(2_000);
    await expect(get(srv.port, '/fast')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  test('an idle keep-alive connection does not hold close() open', async () => {
    const { app } = start();
    const srv = await listen(app, 0, undefined, '127.0.0.1');
    running = srv;
    const res = await fetch(`http://127.0.0.1:${srv.port}/fast`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const t0 = Date.now();
    await srv.close(10_000);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  test('an in-flight request on a keep-alive connection completes, and close() does not wait out the grace', async () => {
    const { app, slowStartedP, releaseSlow } = start();
    const srv = await listen(app, 0, undefined, '127.0.0.1');
    running = srv;
    const slow = fetch(`http://127.0.0.1:${srv.port}/slow`, { headers: { connection: 'keep-alive' } });
    await slowStartedP;
    const t0 = Date.now();
    const closing = srv.close(5_000);
    await sleep(50);
    releaseSlow();
    const res = await slow;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ slow: 'done' });
    await closing;
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  test('close() with a small grace cuts a request that never ends', async () => {
    const { app, hangStartedP } = start();
    const cap = captureLogger('grace');
    const srv = await listen(app, 0, cap.logger, '127.0.0.1');
    running = srv;
    const hanging = get(srv.port, '/hang');
    const outcome = hanging.then(
      (r) => ({ ok: true as const, r }),
      (err: NodeJS.ErrnoException) => ({ ok: false as const, err }),
    );
    await hangStartedP;

    const t0 = Date.now();
    await srv.close(200);
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3_000);

    const result = await outcome;
    expect(result.ok).toBe(false);
    if (!result.ok) expect(['ECONNRESET', 'EPIPE']).toContain(result.err.code ?? result.err.message);
    expect(srv.server.listening).toBe(false);
    const warned = cap.lines.map((l) => JSON.parse(l) as { level: string; message: string });
    expect(warned.some((l) => l.level === 'warn' && /grace/.test(l.message))).toBe(true);
  });
});
