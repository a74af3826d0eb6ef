import request from 'supertest';

import { createExecutionRepository, type ExecutionRecord } from '@platform/scheduling';
import { startLocalServer, type LocalServer } from '@platform/testing';

import { startScheduleStack, type ScheduleStack } from './schedule-stack';

let s: ScheduleStack;
let canary4: LocalServer;
let canary6: LocalServer;

/**
 * The addresses below are refused by the scheduler when a schedule is created (validation.int.test.ts); this app
 * allows them, as a scheduler whose allow-list is not the worker's would, so that what is tested here is the worker's
 * own guard: the one that also stands for host names, redirects and schedules stored before their address was refused.
 */
const SCHEDULER_ALLOWS = [
  '127.0.0.1',
  '0.0.0.0',
  '[::1]',
  '[::ffff:7f00:1]',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '100.64.0.1',
  '169.254.169.254',
  '[fe80::1]',
  '[fd00::1]',
].join(',');

beforeAll(async () => {
  s = await startScheduleStack({ outboundAllow: SCHEDULER_ALLOWS });
  await s.startWorker();
  canary4 = await startLocalServer((_req, res) => res.end('canary'));
  canary6 = await startLocalServer((_req, res) => res.end('canary'), '::1');
}, 60_000);
afterAll(async () => {
  await canary4.close();
  await canary6.close();
  await s.close();
}, 30_000);

/** Creates an HTTP schedule for `url`, runs it now, and waits for the run to end. */
async function runOnce(url: string, extra: Record<string, unknown> = {}): Promise<ExecutionRecord> {
  const id = await s.createHttp({ url, max_retries: 0, ...extra });
  const res = await request(s.t.app).post(`/http-schedules/${id}/trigger`).set('x-api-key', s.key);
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ execution_id: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'queued' });
  const executions = createExecutionRepository(s.t.dbs.conn);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const e = await executions.get(res.body.execution_id);
    if (e && ['succeeded', 'failed'].includes(e.status)) return e;
    if (Date.now() > deadline) throw new Error(`run did not end: ${JSON.stringify(e)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the address guard (every connection and redirect)', () => {
  const p4 = () => canary4.port;
  const targets: [string, () => string][] = [
    ['127.0.0.1', () => `http://127.0.0.1:${p4()}/`],
    ['127.1', () => `http://127.1:${p4()}/`],
    ['0.0.0.0', () => `http://0.0.0.0:${p4()}/`],
    ['2130706433', () => `http://2130706433:${p4()}/`],
    ['0x7f000001', () => `http://0x7f000001:${p4()}/`],
    ['localhost', () => `http://localhost:${p4()}/`],
    ['[::1]', () => `http://[::1]:${canary6.port}/`],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${p4()}/`],
    ['10/8', () => 'http://10.0.0.1/'],
    ['172.16/12', () => 'http://172.16.0.1/'],
    ['192.168/16', () => 'http://192.168.1.1/'],
    ['100.64/10', () => 'http://100.64.0.1/'],
    ['169.254.169.254 (metadata)', () => 'http://169.254.169.254/latest/meta-data/'],
    ['fe80::/10', () => 'http://[fe80::1]/'],
    ['fc00::/7', () => 'http://[fd00::1]/'],
  ];

  it.each(targets)('refuses %s and never connects', async (_name, url) => {
    const run = await runOnce(url());
    expect(run).toMatchObject({ status: 'failed', success: false, response_status: null, attempt: 1 });
    expect(run.error_message).toMatch(/refused/);
    expect(canary4.connections).toBe(0);
    expect(canary6.connections).toBe(0);
  });

  it('refuses a redirect from an allowed host to a loopback address', async () => {
    s.setTarget((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${canary4.port}/steal` });
      res.end();
    });
    const run = await runOnce(`${s.target.url}/go`);
    expect(run.status).toBe('failed');
    expect(run.error_message).toMatch(/refused/);
    expect(canary4.connections).toBe(0);
  });
});

describe('calls to an allowed endpoint', () => {
  beforeEach(() => s.setTarget((_req, res) => res.end('ok')));

  it('sends method, query, JSON body and the opened header values; succeeds on a 2xx', async () => {
    s.setTarget((_req, res) => {
      res.statusCode = 201;
      res.setHeader('content-type', 'application/json');
      res.end('{"created":true}');
    });
    const before = s.target.requests.length;
    const run = await runOnce(`${s.target.url}/items?x=1`, {
      method: 'POST',
      headers: { Authorization: 'Bearer s3cret', 'X-Trace': 'abc' },
      query: { page: 2, q: 'a b' },
      body: { hello: 'world' },
    });
    expect(run).toMatchObject({
      status: 'succeeded',
      success: true,
      response_status: 201,
      response_output: '{"created":true}',
    });
    const got = s.target.requests[before]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/items?x=1&page=2&q=a+b');
    expect(got.headers.authorization).toBe('Bearer s3cret');
    expect(got.headers['x-trace']).toBe('abc');
    expect(got.json).toEqual({ hello: 'world' });
  });

  it('fails on a non-2xx, keeping the status and body', async () => {
    s.setTarget((_req, res) => {
      res.statusCode = 404;
      res.end('nope');
    });
    const run = await runOnce(`${s.target.url}/missing`);
    expect(run).toMatchObject({
      status: 'failed',
      success: false,
      response_status: 404,
      response_output: 'nope',
      error_message: 'endpoint answered 404',
    });
  });

  it('stores at most 64 KiB of the response', async () => {
    s.setTarget((_req, res) => res.end('é'.repeat(40_000))); // 80,000 bytes
    const run = await runOnce(`${s.target.url}/big`);
    expect(run.status).toBe('succeeded');
    expect(Buffer.byteLength(run.response_output ?? '')).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.byteLength(run.response_output ?? '')).toBeGreaterThan(64 * 1024 - 2);
  });

  it('gives up an attempt after timeout_ms', async () => {
    s.setTarget(() => undefined); // never answers
    const started = Date.now();
    const run = await runOnce(`${s.target.url}/slow`, { timeout_ms: 300 });
    expect(run.status).toBe('failed');
    expect(run.error_message).toMatch(/300 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
