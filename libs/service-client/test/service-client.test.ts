/** The internal-service client against a real local HTTP server: headers, limits, and the four ways a call ends. */
import Joi from 'joi';

import { BadGatewayError, NotFoundError, ServiceUnavailableError } from '@platform/errors';
import { createOutboundClient } from '@platform/outbound';
import { createServiceClient, ServiceUnreachableError } from '@platform/service-client';
import { captureLogger, startLocalServer, type LocalServer } from '@platform/testing';

const owner = { user_id: 'u1', org_id: 'o1' };
const thing = Joi.object<{ id: string; n: number }>({ id: Joi.string().required(), n: Joi.number().required() });
let server: LocalServer;
let answer: { status: number; body: unknown; delayMs?: number };

beforeAll(async () => {
  server = await startLocalServer(async (_req, res) => {
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
});
afterAll(() => server.close());

function client(opts: { secret?: string | null; unexpected?: () => Error; timeoutMs?: number } = {}) {
  const { logger, lines } = captureLogger();
  const outbound = createOutboundClient({ allowHosts: `127.0.0.1:${server.port}` });
  const target = {
    baseUrl: `${server.url}/`,
    secret: opts.secret === undefined ? 's3cret' : opts.secret,
    timeoutMs: opts.timeoutMs,
  };
  return {
    lines,
    c: createServiceClient({ outbound, target, logger, name: 'thing service', unexpected: opts.unexpected }),
  };
}

const call = (c: ReturnType<typeof client>['c'], extra: object = {}) =>
  c.call({ what: 'a thing read', path: '/v1/things/1', query: { q: 'a b' }, owner, response: thing, ...extra });

test('a 200 of the right shape is returned, typed; the call carries the internal headers, owner and query', async () => {
  answer = { status: 200, body: { id: 'x', n: 2, extra: true } };
  const { c } = client();
  const value: { id: string; n: number } = await call(c, { method: 'POST', body: { a: 1 } });
  expect(value).toEqual({ id: 'x', n: 2, extra: true });
  const req = server.requests.at(-1)!;
  expect(req.method).toBe('POST');
  expect(req.url).toBe('/v1/things/1?q=a+b');
  expect(req.json).toEqual({ a: 1 });
  expect(Object.values(req.headers)).toEqual(expect.arrayContaining(['s3cret', 'u1', 'o1']));
});

test('a 200 of the wrong shape is unexpected: 503 by default, or the client error; logged without the body', async () => {
  answer = { status: 200, body: { id: 'x', secret: 'do-not-log' } };
  const { c, lines } = client();
  await expect(call(c)).rejects.toBeInstanceOf(ServiceUnavailableError);
  expect(lines.join('\n')).toMatch(/unexpected body/);
  expect(lines.join('\n')).not.toMatch(/do-not-log/);
  const bad = client({ unexpected: () => new BadGatewayError('Thing service error') });
  await expect(call(bad.c)).rejects.toBeInstanceOf(BadGatewayError);
});

test('a handled status returns or throws what its handler does; an unhandled one is unexpected', async () => {
  answer = { status: 404, body: { detail: 'Not found' } };
  const { c, lines } = client();
  await expect(call(c, { on: { 404: () => null } })).resolves.toBeNull();
  await expect(
    call(c, {
      on: {
        404: () => {
          throw new NotFoundError('Thing');
        },
      },
    }),
  ).rejects.toBeInstanceOf(NotFoundError);
  answer = { status: 500, body: {} };
  await expect(call(c)).rejects.toBeInstanceOf(ServiceUnavailableError);
  expect(lines.join('\n')).toMatch(/"status":500/);
});

test('no secret, an unreachable service or a timeout → 503, and nothing is sent without a secret', async () => {
  const before = server.requests.length;
  await expect(call(client({ secret: null }).c)).rejects.toBeInstanceOf(ServiceUnavailableError);
  expect(server.requests.length).toBe(before);
  expect(client({ secret: null }).c.configured).toBe(false);
  answer = { status: 200, body: { id: 'x', n: 1 }, delayMs: 300 };
  await expect(call(client({ timeoutMs: 50 }).c)).rejects.toBeInstanceOf(ServiceUnavailableError);
  const { logger } = captureLogger();
  const gone = createServiceClient({
    outbound: createOutboundClient({ allowHosts: '127.0.0.1:1' }),
    target: { baseUrl: 'http://127.0.0.1:1', secret: 's' },
    logger,
    name: 'gone service',
  });
  await expect(call(gone)).rejects.toBeInstanceOf(ServiceUnavailableError);
});

test('a Buffer body is sent as is with its content type; a status handler is handed the answer body', async () => {
  answer = { status: 422, body: { detail: 'the thing is broken' } };
  const { c } = client();
  const seen: unknown[] = [];
  const value = await call(c, {
    method: 'POST',
    body: Buffer.from('--b\r\nraw bytes\r\n--b--\r\n'),
    contentType: 'multipart/form-data; boundary=b',
    on: { 422: (body: unknown) => (seen.push(body), { id: 'handled', n: 0 }) },
  });
  expect(value).toEqual({ id: 'handled', n: 0 });
  expect(seen).toEqual([{ detail: 'the thing is broken' }]);
  const req = server.requests.at(-1)!;
  expect(req.headers['content-type']).toBe('multipart/form-data; boundary=b');
  expect(req.body).toBe('--b\r\nraw bytes\r\n--b--\r\n');
});

test("send hands back any answer; a call with the caller's own key needs no secret and carries no owner", async () => {
  answer = { status: 418, body: { detail: 'teapot' } };
  const { c } = client({ secret: null });
  await expect(c.send({ what: 'a check', path: '/v1/things/2', apiKey: 'sk_caller' })).resolves.toEqual({
    status: 418,
    data: { detail: 'teapot' },
  });
  const req = server.requests.at(-1)!;
  expect(req.headers['x-api-key']).toBe('sk_caller');
  expect(Object.values(req.headers)).not.toContain('s3cret');
  expect(Object.keys(req.headers).filter((h) => h.startsWith('x-on-behalf-of'))).toEqual([]);
});

test('no answer is ServiceUnreachableError (a 503) holding the outbound error, whose code says why', async () => {
  const { logger, lines } = captureLogger();
  const gone = createServiceClient({
    outbound: createOutboundClient({ allowHosts: '127.0.0.1:1' }),
    target: { baseUrl: 'http://127.0.0.1:1', secret: 's' },
    logger,
    name: 'gone service',
  });
  const err = await gone.send({ what: 'a read', path: '/x', owner }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ServiceUnreachableError);
  expect(err).toBeInstanceOf(ServiceUnavailableError);
  expect(((err as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
  expect(lines).toEqual([]); // send leaves the logging to its caller; call logs
  await expect(call(gone)).rejects.toBeInstanceOf(ServiceUnreachableError);
  expect(lines.join('\n')).toMatch(/gone service unreachable for a thing read.*ECONNREFUSED/);
});
