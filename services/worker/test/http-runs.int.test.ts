import { randomBytes } from 'node:crypto';

import { createSecretBox } from '@platform/secrets';
import { startLocalServer, type LocalServer } from '@platform/testing';

import { OWNER, startWorkerStack, type WorkerStack } from './worker-stack';

const MAX_RESPONSE_BYTES = 100 * 1024;

let s: WorkerStack;
let outsider: LocalServer;

beforeAll(async () => {
  s = await startWorkerStack({ httpMaxResponseBytes: MAX_RESPONSE_BYTES });
  outsider = await startLocalServer((_req, res) => res.end('should never be reached'));
}, 30_000);
afterAll(async () => {
  await outsider.close();
  await s.close();
}, 30_000);
beforeEach(() => s.setTarget((_req, res) => res.end('ok')));

/** The requests the target received for a path. */
const received = (path: string) => s.target.requests.filter((r) => r.url.split('?')[0] === path);

describe('the call an HTTP schedule makes', () => {
  it('sends method, query, opened header values and the JSON body; stores the 2xx status and body', async () => {
    s.setTarget((_req, res) => {
      res.statusCode = 201;
      res.setHeader('content-type', 'application/json');
      res.end('{"created":true}');
    });
    const schedule = await s.createHttpSchedule({
      url: `${s.target.url}/items?x=1`,
      method: 'POST',
      headers: { Authorization: 'Bearer s3cret-token', 'X-Trace': 'abc 123' },
      query: { page: '2', q: 'a b' },
      body: { hello: 'world', list: [1, { deep: null }] },
    });
    // Stored sealed: the plain values are not in the record.
    expect(JSON.stringify(schedule.http?.headers_sealed)).not.toContain('s3cret-token');
    const exec = await s.runNow(schedule);
    const done = await s.waitEnded(exec.id);

    expect(done).toMatchObject({
      kind: 'http_schedule',
      status: 'succeeded',
      success: true,
      attempt: 1,
      response_status: 201,
      response_output: '{"created":true}',
      error_message: null,
    });
    const [got, ...more] = received('/items');
    expect(more).toHaveLength(0);
    expect(got!.method).toBe('POST');
    expect(got!.url).toBe('/items?x=1&page=2&q=a+b');
    expect(got!.headers.authorization).toBe('Bearer s3cret-token');
    expect(got!.headers['x-trace']).toBe('abc 123');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.json).toEqual({ hello: 'world', list: [1, { deep: null }] });
    // The execution's payload never holds header values.
    expect(JSON.stringify(done.payload)).not.toContain('s3cret-token');
  });

  it('keeps a content-type the schedule sets, and sends no body with GET', async () => {
    const put = await s.createHttpSchedule({
      url: `${s.target.url}/typed`,
      method: 'PUT',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { a: 1 },
    });
    const get = await s.createHttpSchedule({ url: `${s.target.url}/plain`, method: 'GET', body: { ignored: true } });
    const [a, b] = await Promise.all([s.runNow(put), s.runNow(get)]);
    await Promise.all([s.waitEnded(a.id), s.waitEnded(b.id)]);
    const [typed] = received('/typed');
    expect(typed).toMatchObject({ method: 'PUT', body: '{"a":1}' });
    expect(typed!.headers['content-type']).toBe('application/merge-patch+json');
    const [plain] = received('/plain');
    expect(plain).toMatchObject({ method: 'GET', body: '' });
    expect(plain!.headers['content-type']).toBeUndefined();
  });

  it('uses the schedule as it is at the attempt: a deleted schedule’s run fails without a call', async () => {
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/gone` });
    const exec = await s.storeExecution({
      kind: 'http_schedule',
      schedule_id: schedule.id,
      user_id: schedule.user_id,
      org_id: schedule.org_id,
      payload: { method: 'GET', url: schedule.http?.url, manual: true },
      max_attempts: 3,
      retry_delay_ms: 1000,
    });
    await s.schedules.delete({ user_id: schedule.user_id, org_id: schedule.org_id }, 'http', schedule.id);
    await s.enqueue(exec);
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'failed', attempt: 1, error_message: 'the HTTP schedule no longer exists' });
    expect(received('/gone')).toHaveLength(0);
  });
});

describe('bodies and secrets as stored', () => {
  it.each([
    ['a plain string', 'hello'],
    ['a string that reads as JSON', '{"a":1}'],
    ['a string of digits', '42'],
    ['a number', 42],
    ['an array', [1, 'two']],
  ])('sends %s body as its JSON text', async (_name, body) => {
    const path = `/json-${Math.random().toString(36).slice(2)}`;
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}${path}`, method: 'POST', body });
    await s.waitEnded((await s.runNow(schedule)).id);
    const [got] = received(path);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.body).toBe(JSON.stringify(body));
  });

  it('a run whose header values cannot be opened (sealed under another key) ends failed within its attempts, without a call', async () => {
    const schedule = await s.createHttpSchedule(
      { url: `${s.target.url}/foreign-key`, headers: { 'X-Token': 'v' } },
      { max_retries: 0 },
    );
    const foreign = createSecretBox(randomBytes(32));
    await s.schedules.update(OWNER, 'http', schedule.id, {
      http: { ...schedule.http!, headers_sealed: { 'X-Token': foreign.encrypt('v') } },
    });
    const exec = await s.runNow(schedule);
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'failed', success: false, attempt: 1 });
    expect(done.error_message).toMatch(/^worker error: /);
    // The job itself completed: the failure is recorded, not left to BullMQ's retries or the recovery rule.
    await s.waitJob(s.queues.httpCalls, exec.id, 'completed');
    expect(received('/foreign-key')).toHaveLength(0);
  });
});

describe('answers that are not a success', () => {
  it('a non-2xx is retried retry_delay apart, then succeeds', async () => {
    const times: number[] = [];
    s.setTarget((_req, res) => {
      times.push(Date.now());
      res.statusCode = times.length === 1 ? 500 : 200;
      res.end(times.length === 1 ? 'busy' : 'fine');
    });
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/flaky` }, { max_retries: 2, retry_delay: 1 });
    const exec = await s.runNow(schedule);
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      attempt: 2,
      max_attempts: 3,
      response_status: 200,
      response_output: 'fine',
      error_message: null,
    });
    expect(received('/flaky')).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('a non-2xx with no retries left ends the run failed, keeping the status and body', async () => {
    s.setTarget((_req, res) => {
      res.statusCode = 404;
      res.end('nope');
    });
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/missing` }, { max_retries: 0 });
    const exec = await s.runNow(schedule);
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({
      status: 'failed',
      success: false,
      attempt: 1,
      max_attempts: 1,
      response_status: 404,
      response_output: 'nope',
      error_message: 'endpoint answered 404',
    });
    expect(received('/missing')).toHaveLength(1);
  });

  it('gives an attempt up after the schedule’s timeout_ms', async () => {
    s.setTarget(() => undefined); // never answers
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/slow`, timeout_ms: 300 });
    const started = Date.now();
    const exec = await s.runNow(schedule);
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'failed', attempt: 1, response_status: null });
    expect(done.error_message).toMatch(/300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('limits', () => {
  it('a response within HTTP_MAX_RESPONSE_BYTES succeeds; 64 KiB of it is stored', async () => {
    s.setTarget((_req, res) => res.end('é'.repeat(40_000))); // 80,000 bytes
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/big` });
    const done = await s.waitEnded((await s.runNow(schedule)).id);
    expect(done.status).toBe('succeeded');
    const stored = Buffer.byteLength(done.response_output ?? '');
    expect(stored).toBeLessThanOrEqual(64 * 1024);
    expect(stored).toBeGreaterThan(64 * 1024 - 2);
    expect(done.response_output).toBe('é'.repeat(stored / 2));
  });

  it('a response larger than HTTP_MAX_RESPONSE_BYTES fails the attempt', async () => {
    s.setTarget((_req, res) => res.end('x'.repeat(MAX_RESPONSE_BYTES + 1)));
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/huge` }, { max_retries: 0 });
    const done = await s.waitEnded((await s.runNow(schedule)).id);
    expect(done).toMatchObject({
      status: 'failed',
      success: false,
      attempt: 1,
      response_status: null,
      response_output: null,
      error_message: `response larger than ${MAX_RESPONSE_BYTES} bytes`,
    });
    expect(received('/huge')).toHaveLength(1);
  });

  it.each([
    ['a loopback port not allow-listed', () => `${outsider.url}/steal`],
    ['localhost', () => `http://localhost:${outsider.port}/steal`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses %s at once, with retries left, and never connects', async (_name, url) => {
    const schedule = await s.createHttpSchedule({ url: url() }, { max_retries: 2, retry_delay: 1 });
    const done = await s.waitEnded((await s.runNow(schedule)).id);
    expect(done).toMatchObject({ status: 'failed', success: false, attempt: 1, response_status: null });
    expect(done.error_message).toMatch(/refused/);
    expect(outsider.connections).toBe(0);
  });

  it('refuses a redirect from the allowed endpoint to an address that is not', async () => {
    s.setTarget((_req, res) => {
      res.writeHead(302, { location: `${outsider.url}/steal` });
      res.end();
    });
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/go` }, { max_retries: 2, retry_delay: 1 });
    const done = await s.waitEnded((await s.runNow(schedule)).id);
    expect(done).toMatchObject({ status: 'failed', attempt: 1 });
    expect(done.error_message).toMatch(/refused/);
    expect(received('/go')).toHaveLength(1);
    expect(outsider.connections).toBe(0);
  });
});
