import express, { type Express, type Router } from 'express';
import Joi from 'joi';
import request from 'supertest';

import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  ValidationError,
} from '@platform/errors';
import { createHttpApp, pageSchema, validate, type ReadinessCheck } from '@platform/http';
import { captureLogger } from '@platform/testing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const thingBody = Joi.object({
  name: Joi.string().min(1).max(20).required(),
  count: Joi.number().integer().min(0),
  kind: Joi.string().valid('a', 'b'),
});

/** Test routes exercising every error path the HTTP layer maps. */
function testRoutes(logger: ReturnType<typeof captureLogger>['logger']): Router {
  const r = express.Router();
  r.get('/things', (req, res) => {
    const page = validate(pageSchema, req.query, 'query');
    res.json({ things: [], ...page });
  });
  r.post('/things', (req, res) => {
    const body = validate(thingBody, req.body, 'body');
    res.status(201).json(body);
  });
  r.get('/things/:id', (req, res) => {
    logger.info('inside route', { id: req.params.id });
    res.json({ id: req.params.id });
  });
  r.get('/boom/not-found', () => {
    throw new NotFoundError('Widget');
  });
  r.get('/boom/conflict', () => {
    throw new ConflictError('Widget is paused');
  });
  r.get('/boom/forbidden', () => {
    throw new ForbiddenError();
  });
  r.get('/boom/unavailable', () => {
    throw new ServiceUnavailableError(new Error('redis down'));
  });
  r.get('/boom/plain', () => {
    throw new Error('secret internals: /etc/passwd at line 42');
  });
  r.get('/boom/async-plain', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    throw new TypeError('cannot read properties of undefined');
  });
  r.get('/boom/mongo', async () => {
    const err = new Error('Server selection timed out after 3000 ms');
    err.name = 'MongoServerSelectionError';
    throw err;
  });
  r.get('/boom/refused', async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:27017');
  });
  r.get('/boom/rate', () => {
    throw new RateLimitedError(2.2);
  });
  r.get('/boom/validation', () => {
    throw ValidationError.field(['path', 'id'], 'Bad id', 'value_error');
  });
  r.post('/echo', (req, res) => {
    res.json({ received: req.body as unknown });
  });
  return r;
}

function build(
  opts: {
    readiness?: Record<string, ReadinessCheck>;
    openapi?: Record<string, unknown>;
    jsonLimit?: string | number;
  } = {},
) {
  const cap = captureLogger('http-test');
  const raw = express.Router();
  raw.post('/raw', express.text({ type: '*/*' }), (req, res) => {
    res.json({ raw: req.body as string });
  });
  const { app, registry } = createHttpApp({
    service: 'http-test',
    logger: cap.logger,
    routes: testRoutes(cap.logger),
    rawRoutes: [raw],
    ...opts,
  });
  return { app, registry, lines: cap.lines };
}

const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('createHttpApp: body parsing', () => {
  let app: Express;
  beforeAll(() => {
    app = build({ jsonLimit: 1024 }).app;
  });

  test('unparsable JSON → 422 with loc ["body"] and type json_invalid', async () => {
    const res = await request(app).post('/echo').set('content-type', 'application/json').send('{"name": "x",');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'json_invalid' }] });
    expect(res.body.detail[0].msg.length).toBeGreaterThan(0);
  });

  test('a bare JSON scalar (strict parser) is also 422 json_invalid', async () => {
    const res = await request(app).post('/echo').set('content-type', 'application/json').send('"just a string"');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  test('valid JSON within the limit is parsed', async () => {
    const res = await request(app)
      .post('/echo')
      .send({ a: 1, b: ['x'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: { a: 1, b: ['x'] } });
  });

  test('a body over jsonLimit → 413 {"detail":"Request body too large"}', async () => {
    const res = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ big: 'x'.repeat(2000) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body too large' });
  });

  test('a body just under jsonLimit is accepted', async () => {
    const body = JSON.stringify({ big: 'x'.repeat(900) });
    expect(Buffer.byteLength(body)).toBeLessThan(1024);
    const res = await request(app).post('/echo').set('content-type', 'application/json').send(body);
    expect(res.status).toBe(200);
  });

  test('raw routes are mounted before the JSON parser and see the raw bytes', async () => {
    const res = await request(app).post('/raw').set('content-type', 'application/json').send('{"not": "parsed"');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ raw: '{"not": "parsed"' });
  });
});

describe('createHttpApp: error shapes', () => {
  let app: Express;
  let lines: string[];
  beforeAll(() => {
    ({ app, lines } = build());
  });

  test('unknown path → 404 {"detail":"Not Found"}', async () => {
    const res = await request(app).get('/no/such/path');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
  });

  test('unknown method on a known path → 404 {"detail":"Not Found"}', async () => {
    const res = await request(app).delete('/things');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
  });

  test.each([
    ['/boom/not-found', 404, 'Widget not found'],
    ['/boom/conflict', 409, 'Widget is paused'],
    ['/boom/forbidden', 403, 'Invalid Permission'],
    ['/boom/unavailable', 503, 'Service unavailable'],
  ])('%s → %i with {detail}', async (path, status, detail) => {
    const res = await request(app).get(path);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ detail });
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  test('a thrown ValidationError keeps its field list', async () => {
    const res = await request(app).get('/boom/validation');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['path', 'id'], msg: 'Bad id', type: 'value_error' }] });
  });

  test('a plain Error → 500 {"detail":"Internal Server Error"} with no stack or message, and it is logged', async () => {
    const res = await request(app).get('/boom/plain').set('x-request-id', 'plain-err-1');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal Server Error' });
    expect(res.text).not.toMatch(/secret internals|passwd|\bat\s|\.ts:\d+|stack/);
    await flush();
    const errorLines = parsed(lines).filter((l) => l.level === 'error' && l.requestId === 'plain-err-1');
    expect(errorLines.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(errorLines)).toContain('secret internals');
  });

  test('an error thrown after an await (async handler) → 500 as well', async () => {
    const res = await request(app).get('/boom/async-plain');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal Server Error' });
    expect(res.text).not.toContain('cannot read properties');
  });

  test('an error named MongoServerSelectionError → 503 {"detail":"Service unavailable"}', async () => {
    const res = await request(app).get('/boom/mongo');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Service unavailable' });
    expect(res.text).not.toContain('Server selection');
  });

  test('a connection-refused Error → 503', async () => {
    const res = await request(app).get('/boom/refused');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Service unavailable' });
  });

  test('RateLimitedError → 429 with Retry-After in whole seconds', async () => {
    const res = await request(app).get('/boom/rate');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.body).toEqual({ detail: 'Too many requests' });
  });
});

describe('createHttpApp: validate()', () => {
  let app: Express;
  beforeAll(() => {
    app = build().app;
  });

  test('one FastAPI-style entry per invalid body field, loc starting with body', async () => {
    const res = await request(app).post('/things').send({ count: 'seven', kind: 'z' });
    expect(res.status).toBe(422);
    const detail = res.body.detail as { loc: unknown[]; msg: string; type: string }[];
    expect(detail).toHaveLength(3);
    for (const d of detail) {
      expect(d.loc[0]).toBe('body');
      expect(typeof d.msg).toBe('string');
      expect(d.msg.length).toBeGreaterThan(0);
      expect(typeof d.type).toBe('string');
    }
    const byField = Object.fromEntries(detail.map((d) => [d.loc.join('.'), d]));
    expect(byField['body.name']).toMatchObject({ type: 'missing' });
    expect(byField['body.count']).toMatchObject({ type: 'float_type' });
    expect(byField['body.kind']).toMatchObject({ type: 'enum' });
    // messages do not repeat the field name in quotes (FastAPI style)
    expect(byField['body.name']!.msg).not.toMatch(/^"/);
  });

  test('body types are strict: a numeric string is not a number', async () => {
    const res = await request(app).post('/things').send({ name: 'n', count: '3' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'count'], msg: expect.any(String), type: 'float_type' }]);
  });

  test('a valid body passes, unknown fields are dropped', async () => {
    const res = await request(app).post('/things').send({ name: 'n', count: 3, user_id: 'attacker', extra: true });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'n', count: 3 });
  });

  test('a body that is not an object → 422 at loc ["body"]', async () => {
    const res = await request(app).post('/things').send([1, 2]);
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0].loc).toEqual(['body']);
    expect(res.body.detail[0].type).toBe('dict_type');
  });

  test('query values convert and default; invalid ones give loc starting with query', async () => {
    const ok = await request(app).get('/things?skip=5');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ things: [], skip: 5, limit: 50 });

    const bad = await request(app).get('/things?skip=-1&limit=500');
    expect(bad.status).toBe(422);
    const detail = bad.body.detail as { loc: unknown[]; type: string }[];
    expect(detail).toHaveLength(2);
    expect(detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['query', 'skip'], type: 'greater_than_equal' }),
        expect.objectContaining({ loc: ['query', 'limit'], type: 'less_than_equal' }),
      ]),
    );

    const notInt = await request(app).get('/things?limit=abc');
    expect(notInt.status).toBe(422);
    expect(notInt.body.detail).toEqual([{ loc: ['query', 'limit'], msg: expect.any(String), type: 'float_type' }]);
  });
});

describe('createHttpApp: paths and headers', () => {
  let app: Express;
  let lines: string[];
  beforeAll(() => {
    ({ app, lines } = build());
  });

  test('/things and /things/ answer the same, with no redirect', async () => {
    const a = await request(app).get('/things');
    const b = await request(app).get('/things/');
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.location).toBeUndefined();
    expect(b.body).toEqual(a.body);

    const pa = await request(app).post('/things').send({ name: 'x' });
    const pb = await request(app).post('/things/').send({ name: 'x' });
    expect(pa.status).toBe(201);
    expect(pb.status).toBe(201);
    expect(pb.body).toEqual(pa.body);
  });

  test('no x-powered-by; helmet headers present', async () => {
    const res = await request(app).get('/things');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBeDefined();
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.headers['strict-transport-security']).toBeDefined();
  });

  test('error responses carry the security headers too', async () => {
    const res = await request(app).get('/nope');
    expect(res.status).toBe(404);
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  test('x-request-id is echoed when sent, and is on every log line of that request', async () => {
    const res = await request(app).get('/things/abc').set('x-request-id', 'req-echo-123');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('req-echo-123');
    await flush();
    const mine = parsed(lines).filter((l) => l.requestId === 'req-echo-123');
    const messages = mine.map((l) => l.message);
    expect(messages).toContain('inside route');
    expect(messages).toContain('request');
    const access = mine.find((l) => l.message === 'request')!;
    expect(access).toMatchObject({ method: 'GET', path: '/things/abc', status: 200, service: 'http-test' });
    expect(typeof access.duration_ms).toBe('number');
    // no line of this request lacks the id
    const inRoute = parsed(lines).filter((l) => l.message === 'inside route' && l.id === 'abc');
    expect(inRoute.every((l) => l.requestId === 'req-echo-123')).toBe(true);
  });

  test('x-request-id is generated when absent, and differs per request', async () => {
    const a = await request(app).get('/things/gen1');
    const b = await request(app).get('/things/gen2');
    const idA = a.headers['x-request-id'];
    const idB = b.headers['x-request-id'];
    expect(idA).toMatch(UUID);
    expect(idB).toMatch(UUID);
    expect(idA).not.toBe(idB);
    await flush();
    const line = parsed(lines).find((l) => l.message === 'inside route' && l.id === 'gen1');
    expect(line?.requestId).toBe(idA);
  });

  test('an unsafe x-request-id is replaced, not echoed', async () => {
    const res = await request(app).get('/things').set('x-request-id', 'bad id with spaces<script>');
    expect(res.headers['x-request-id']).toMatch(UUID);
    const long = await request(app).get('/things').set('x-request-id', 'a'.repeat(200));
    expect(long.headers['x-request-id']).toMatch(UUID);
  });
});

describe('createHttpApp: ops endpoints', () => {
  test('/healthz → 200', async () => {
    const { app } = build();
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  test('/readyz → 200 when every check is true', async () => {
    const { app } = build({ readiness: { mongodb: async () => true, redis: async () => true } });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { mongodb: 'ok', redis: 'ok' } });
  });

  test('/readyz → 200 with no checks at all', async () => {
    const { app } = build();
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
  });

  test('/readyz → 503 naming the failing check when one is false', async () => {
    const { app } = build({ readiness: { mongodb: async () => true, redis: async () => false } });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { mongodb: 'ok', redis: 'unavailable' } });
  });

  test('/readyz → 503 naming the failing check when one rejects', async () => {
    const { app } = build({
      readiness: {
        mongodb: async () => {
          throw new Error('connect ECONNREFUSED');
        },
        redis: async () => true,
      },
    });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { mongodb: 'unavailable', redis: 'ok' } });
  });

  test('/readyz → 503 naming the failing check when one throws synchronously', async () => {
    const throwsSync: ReadinessCheck = () => {
      throw new Error('client not initialised');
    };
    const { app } = build({ readiness: { mongodb: async () => true, redis: throwsSync } });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { mongodb: 'ok', redis: 'unavailable' } });
  });

  test('/metrics is Prometheus text with http_requests_total labelled by route template', async () => {
    const { app } = build();
    await request(app).get('/things/12345');
    await request(app).get('/things/67890');
    await request(app).get('/no/such/thing');
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('# TYPE http_requests_total counter');
    const line = res.text
      .split('\n')
      .find((l) => l.startsWith('http_requests_total{') && l.includes('route="/things/:id"'));
    expect(line).toBeDefined();
    expect(line).toContain('method="GET"');
    expect(line).toContain('status="200"');
    expect(line).toContain('service="http-test"');
    expect(line).toMatch(/ 2$/);
    expect(res.text).not.toContain('12345');
    expect(res.text).not.toContain('/no/such/thing');
    expect(res.text).toMatch(/http_requests_total\{[^}]*route="unmatched"[^}]*status="404"/);
    expect(res.text).toContain('http_request_duration_seconds_bucket');
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });

  test('/openapi.json returns the given document', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Things API', version: '9.9.9' },
      paths: { '/things': { get: { responses: { 200: { description: 'ok' } } } } },
    };
    const { app } = build({ openapi: doc });
    const res = await request(app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual(doc);
  });

  test('/openapi.json has a default document naming the service', async () => {
    const { app } = build();
    const res = await request(app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ openapi: expect.stringMatching(/^3\./), info: { title: 'http-test' } });
  });

  test('/docs/ returns the Swagger UI HTML and its assets', async () => {
    const { app } = build();
    const res = await request(app).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toMatch(/<html/i);
    expect(res.text).toContain('swagger-ui');
    expect(res.text).toContain('<title>http-test API</title>');
    const css = await request(app).get('/docs/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/text\/css/);
    const init = await request(app).get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('"title": "http-test"');
  });

  test('/docs (no slash) leads to the same HTML page', async () => {
    // Swagger UI loads its assets by relative URL ("./swagger-ui.css"), so the bare path is sent to /docs/
    // (a browser page, not an API collection: the no-redirect rule is for API paths).
    const { app } = build();
    const res = await request(app).get('/docs').redirects(1);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<title>http-test API</title>');
  });
});
