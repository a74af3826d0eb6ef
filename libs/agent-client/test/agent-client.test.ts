import { NotFoundError, ServiceUnavailableError } from '@platform/errors';
import { withLogContext } from '@platform/logger';
import { createOutboundClient } from '@platform/outbound';
import { captureLogger, freePort, startLocalServer, type LocalServer } from '@platform/testing';

import { createAgentDirectory, createAgentRunner, createTaskClient, isAgentId } from '../src';

let agentService: LocalServer;
let answer: { status: number; body: unknown } = { status: 200, body: {} };
beforeAll(async () => {
  agentService = await startLocalServer((_req, res) => {
    res.statusCode = answer.status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(answer.body));
  });
});
afterAll(() => agentService.close());
const lastRequest = () => agentService.requests.at(-1)!;

test('agent ids are decimal integers below 2^53', () => {
  for (const ok of ['1', '42', String(Number.MAX_SAFE_INTEGER)]) expect(isAgentId(ok)).toBe(true);
  for (const bad of ['0', '01', '-1', '1.5', 'abc', '', '9007199254740992', '1'.repeat(17)])
    expect(isAgentId(bad)).toBe(false);
});

describe('the agent directory', () => {
  const { logger, lines } = captureLogger();
  const directory = () => createAgentDirectory({ baseUrl: `${agentService.url}//`, timeoutMs: 2_000, logger });

  test("asks GET /v3/agents/{id} with the caller's key; 200 resolves", async () => {
    answer = { status: 200, body: { agent_id: 7 } };
    await expect(directory().assertOwnedAgent('sk_caller', '7')).resolves.toBeUndefined();
    expect(lastRequest()).toMatchObject({ method: 'GET', url: '/v3/agents/7' });
    expect(lastRequest().headers['x-api-key']).toBe('sk_caller');
  });

  test('404 is Agent not found; any other answer is 503', async () => {
    answer = { status: 404, body: { detail: 'Agent not found' } };
    await expect(directory().assertOwnedAgent('k', '7')).rejects.toBeInstanceOf(NotFoundError);
    answer = { status: 500, body: {} };
    await expect(directory().assertOwnedAgent('k', '7')).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(lines.some((l) => /agent service answered .*unexpectedly/.test(l) && l.includes('500'))).toBe(true);
  });

  test('an unreachable agent service is 503, logged by its code without the key', async () => {
    const gone = createAgentDirectory({ baseUrl: `http://127.0.0.1:${await freePort()}`, timeoutMs: 2_000, logger });
    await expect(gone.assertOwnedAgent('sk_secret', '7')).rejects.toBeInstanceOf(ServiceUnavailableError);
    const line = lines.find((l) => l.includes('agent service unreachable for an ownership check'));
    expect(line).toContain('ECONNREFUSED');
    expect(lines.join('\n')).not.toContain('sk_secret');
  });
});

describe('the agent runner', () => {
  const { logger } = captureLogger();
  const runner = () =>
    createAgentRunner({ baseUrl: agentService.url, internalSecret: 's'.repeat(32), timeoutMs: 2_000, logger });
  const run = { owner: { user_id: 'u1', org_id: 'o1' }, agent_id: '7', session_id: 'execution-1', message: 'hello' };

  test("posts the message on the owner's behalf; a 2xx is the agent's response", async () => {
    answer = { status: 200, body: { response: 'hi there' } };
    await expect(runner()(run)).resolves.toEqual({ ok: true, status: 200, output: 'hi there' });
    const req = lastRequest();
    expect(req).toMatchObject({
      method: 'POST',
      url: '/v3/inference/chat/',
      json: { agent_id: '7', session_id: 'execution-1', message: 'hello' },
    });
    expect(req.headers).toMatchObject({
      'x-internal-secret': 's'.repeat(32),
      'x-on-behalf-of-user': 'u1',
      'x-on-behalf-of-org': 'o1',
    });
    answer = { status: 200, body: { response: { structured: true } } };
    await expect(runner()(run)).resolves.toMatchObject({ ok: true, output: '{"structured":true}' });
  });

  test('a 4xx is final, a 5xx or 429 transient, a 503 also unavailable; the detail becomes the error', async () => {
    answer = { status: 404, body: { detail: 'Agent not found' } };
    await expect(runner()(run)).resolves.toEqual({
      ok: false,
      transient: false,
      unavailable: false,
      status: 404,
      error: 'Agent not found',
    });
    answer = { status: 422, body: { detail: [{ loc: ['body', 'message'], msg: 'required', type: 'missing' }] } };
    await expect(runner()(run)).resolves.toMatchObject({ transient: false, error: 'required' });
    answer = { status: 429, body: 'slow down' };
    await expect(runner()(run)).resolves.toMatchObject({ transient: true, unavailable: false, status: 429 });
    answer = { status: 503, body: { detail: 'Service unavailable' } };
    await expect(runner()(run)).resolves.toMatchObject({ transient: true, unavailable: true, status: 503 });
  });

  test('an agent service that cannot be reached is unavailable (nothing ran)', async () => {
    const gone = createAgentRunner({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      internalSecret: 'x',
      timeoutMs: 2_000,
      logger,
    });
    await expect(gone(run)).resolves.toMatchObject({
      ok: false,
      transient: true,
      unavailable: true,
      status: null,
      error: 'agent service unreachable: ECONNREFUSED',
    });
  });
});

describe('through the one client of our services (@platform/service-client over @platform/outbound)', () => {
  const { logger } = captureLogger();

  test('each call carries the current request id, so the agent service logs it under the id of its cause', async () => {
    answer = { status: 200, body: { response: 'ok' } };
    const directory = createAgentDirectory({ baseUrl: agentService.url, timeoutMs: 2_000, logger });
    await withLogContext({ requestId: 'req-from-caller-1' }, () => directory.assertOwnedAgent('k', '7'));
    expect(lastRequest().headers['x-request-id']).toBe('req-from-caller-1');
    const runner = createAgentRunner({
      baseUrl: agentService.url,
      internalSecret: 's'.repeat(32),
      timeoutMs: 2_000,
      logger,
    });
    await withLogContext({ requestId: 'req-from-caller-2' }, () =>
      runner({ owner: { user_id: 'u', org_id: 'o' }, agent_id: '7', session_id: 's', message: 'm' }),
    );
    expect(lastRequest().headers['x-request-id']).toBe('req-from-caller-2');
  });

  test("the caller's outbound client is used: one that does not allow the agent service's host reaches nothing (503)", async () => {
    const outbound = createOutboundClient({ allowHosts: '' });
    const before = agentService.requests.length;
    const directory = createAgentDirectory({ baseUrl: agentService.url, timeoutMs: 2_000, logger, outbound });
    await expect(directory.assertOwnedAgent('k', '7')).rejects.toBeInstanceOf(ServiceUnavailableError);
    const runner = createAgentRunner({
      baseUrl: agentService.url,
      internalSecret: 's'.repeat(32),
      timeoutMs: 2_000,
      logger,
      outbound,
    });
    await expect(
      runner({ owner: { user_id: 'u', org_id: 'o' }, agent_id: '7', session_id: 's', message: 'm' }),
    ).resolves.toMatchObject({ ok: false, status: null });
    expect(agentService.requests.length).toBe(before);
    outbound.close();
  });

  test('an answer over 1 MiB to the ownership check is refused (503), not read', async () => {
    answer = { status: 200, body: { pad: 'x'.repeat(1024 * 1024 + 10) } };
    await expect(
      createAgentDirectory({ baseUrl: agentService.url, timeoutMs: 2_000, logger }).assertOwnedAgent('k', '7'),
    ).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});

describe('the task client', () => {
  const { logger } = captureLogger();
  const tasks = () =>
    createTaskClient({ baseUrl: agentService.url, internalSecret: 's'.repeat(32), timeoutMs: 2_000, logger });
  const job = { task_id: 'a b', user_id: 'u1', org_id: 'o1', traceparent: 'ignored' };

  test("runs one attempt on the task owner's behalf; the answer's status is the task's state", async () => {
    answer = { status: 200, body: { status: 'completed' } };
    await expect(tasks().run(job, true)).resolves.toEqual({ ok: true, status: 'completed' });
    expect(lastRequest()).toMatchObject({ method: 'POST', url: '/v3/inference/task/a%20b/run', json: { final: true } });
    expect(lastRequest().headers).toMatchObject({ 'x-on-behalf-of-user': 'u1', 'x-on-behalf-of-org': 'o1' });
    answer = { status: 200, body: { status: 'failed' } };
    await expect(tasks().fail(job, 'gave up')).resolves.toEqual({ ok: true, status: 'failed' });
    expect(lastRequest()).toMatchObject({ url: '/v3/inference/task/a%20b/fail', json: { error: 'gave up' } });
  });

  test('404 is a task gone; other answers and no answer are the failures they stand for', async () => {
    answer = { status: 404, body: { detail: 'Task not found' } };
    await expect(tasks().run(job, false)).resolves.toEqual({ ok: true, status: 'gone' });
    answer = { status: 502, body: { detail: 'provider failed' } };
    await expect(tasks().run(job, false)).resolves.toMatchObject({
      ok: false,
      transient: true,
      unavailable: false,
      status: 502,
      error: 'provider failed',
    });
    const gone = createTaskClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      internalSecret: 'x',
      timeoutMs: 2_000,
      logger,
    });
    await expect(gone.run(job, false)).resolves.toMatchObject({ ok: false, unavailable: true, status: null });
  });
});
