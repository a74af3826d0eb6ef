import express, { type Express, type RequestHandler } from 'express';
import Joi from 'joi';
import request from 'supertest';

import { ForbiddenError } from '@platform/errors';
import {
  createHttpApp,
  hasRoute,
  MAX_INPUT_ERRORS,
  MAX_JSON_DEPTH,
  UNSUPPORTED_MEDIA_TYPE,
  validate,
} from '@platform/http';
import { captureLogger } from '@platform/testing';

const thing = Joi.object({ name: Joi.string().required(), tags: Joi.array().items(Joi.string()) });

/** An app whose routes count how often they ran, to prove that refused input reaches no handler. */
function build() {
  const calls: string[] = [];
  const routes = express.Router();
  routes.post('/things', (req, res) => {
    calls.push('create');
    res.status(201).json(validate(thing, req.body, 'body'));
  });
  routes.put('/things/:id', (req, res) => {
    calls.push(`put ${req.params.id}`);
    res.json({ id: req.params.id, body: req.body as unknown });
  });
  routes.get('/things/:id', (req, res) => {
    calls.push(`get ${req.params.id}`);
    res.json({ id: req.params.id, query: req.query });
  });
  // A router mounted on a prefix, as services mount their feature routers.
  const nested = express.Router();
  nested.post('/:id/items', (req, res) => {
    calls.push(`item ${req.params.id}`);
    res.status(201).json(req.body as unknown);
  });
  routes.use('/v3/agents', nested);
  routes.post('/echo', (req, res) => {
    calls.push('echo');
    res.json({ received: req.body as unknown });
  });
  const raw = express.Router();
  raw.post('/raw/:id', express.text({ type: () => true }), (req, res) => {
    calls.push('raw');
    res.json({ raw: req.body as string });
  });
  const keyCheck: RequestHandler = (req, _res, next) => {
    if (req.get('x-api-key') !== 'good') throw new ForbiddenError('API key missing');
    next();
  };
  const { app } = createHttpApp({
    service: 'guard-test',
    logger: captureLogger('guard-test').logger,
    routes,
    rawRoutes: [raw],
    protect: { paths: ['/things', '/echo'], middleware: keyCheck },
    jsonLimit: '1mb',
  });
  return { app, calls };
}

const post = (app: Express, path = '/echo') => request(app).post(path).set('x-api-key', 'good');
const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/**
 * Routing answers before the media type: an unknown path or method is a 404 whatever the body, a route that exists
 * (mounted, trailing slash or not) still refuses one it cannot read, and a mounted route reads its JSON. `get` gives
 * the running test's app and the handler calls it saw.
 */
function routingAnswersBeforeTheMediaType(get: () => ReturnType<typeof build>): void {
  const MULTIPART = [
    'multipart/form-data; boundary=zz',
    '--zz\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n--zz--\r\n',
  ] as const;

  test.each([
    ['an unknown path', 'post', '/nothing/here'],
    ['an unknown path beside a route', 'post', '/things/1/extra'],
    ['an unknown path under a mounted router', 'post', '/v3/agents/7/unknown'],
    ['an unknown path beside a mounted router', 'post', '/v3/agentsx/7/items'],
    ['a method the route does not have', 'patch', '/things/1'],
  ] as const)('routing answers first: %s with a multipart body → 404, not 415', async (_what, method, path) => {
    const { app, calls } = get();
    const res = await request(app)
      [method](path)
      .set('x-api-key', 'good')
      .set('content-type', MULTIPART[0])
      .send(MULTIPART[1]);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
    expect(calls).toEqual([]);
  });

  test.each(['/v3/agents/7/items', '/v3/agents/7/items/', '/things/', '/things'])(
    'a route that exists (%s, trailing slash or not, under a mounted router) still answers 415',
    async (path) => {
      const { app, calls } = get();
      const res = await post(app, path).set('content-type', MULTIPART[0]).send(MULTIPART[1]);
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ detail: UNSUPPORTED_MEDIA_TYPE });
      expect(calls).toEqual([]);
    },
  );

  test('a router whose layers are not shaped as router 2 makes them: every path counts as routed (415 as before)', () => {
    expect(hasRoute({ stack: [{} as never] }, 'POST', '/anything')).toBe(true);
    const oddRoute = { match: () => ({ path: '/x' }), route: {} };
    expect(hasRoute({ stack: [oddRoute as never] }, 'POST', '/x')).toBe(true);
    expect(hasRoute(express.Router() as never, 'POST', '/x')).toBe(false);
  });

  test('the mounted route reads its JSON body', async () => {
    const { app, calls } = get();
    const res = await post(app, '/v3/agents/7/items').send({ a: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ a: 1 });
    expect(calls).toEqual(['item 7']);
  });
}

describe('Content-Type of JSON routes', () => {
  let app: Express;
  let calls: string[];
  beforeEach(() => {
    ({ app, calls } = build());
  });

  test.each([
    ['text/plain', 'name=x'],
    ['application/x-www-form-urlencoded', 'name=x'],
    ['multipart/form-data; boundary=zz', '--zz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--zz--\r\n'],
    ['application/xml', '<name>x</name>'],
    ['text/json', '{"name":"x"}'],
    ['application/jsonx', '{"name":"x"}'],
    ['not a media type', '{"name":"x"}'],
  ])('a %s body → 415 and no handler runs', async (type, body) => {
    for (const method of ['post', 'put'] as const) {
      const res = await request(app)
        [method](method === 'post' ? '/things' : '/things/1')
        .set('x-api-key', 'good')
        .set('content-type', type)
        .send(body);
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ detail: UNSUPPORTED_MEDIA_TYPE });
    }
    expect(calls).toEqual([]);
  });

  test('a body with no Content-Type at all → 415', async () => {
    const res = await post(app).set('content-length', '12').unset('content-type').send(Buffer.from('{"name":"x"}'));
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: UNSUPPORTED_MEDIA_TYPE });
  });

  test.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/vnd.api+json',
    'application/merge-patch+json',
  ])('%s is read as JSON', async (type) => {
    const res = await post(app, '/things').set('content-type', type).send('{"name":"x"}');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'x' });
  });

  test('no body and no Content-Type: the route sees a missing body (422 missing where one is required)', async () => {
    const res = await post(app, '/things');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'missing' }] });
    const echo = await post(app);
    expect(echo.status).toBe(200);
    expect(echo.body).toEqual({});
  });

  test('an empty body labelled as a form (curl -d "") is no body, not a 415', async () => {
    const res = await post(app, '/things').set('content-type', 'application/x-www-form-urlencoded').send('');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
  });

  test('an empty JSON body is an empty object, as before', async () => {
    const res = await post(app, '/things').set('content-type', 'application/json').send('');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'name'], msg: expect.any(String), type: 'missing' }]);
  });

  routingAnswersBeforeTheMediaType(() => ({ app, calls }));

  test('authentication still answers first: no key and a text body → 403', async () => {
    const res = await request(app).post('/things').set('content-type', 'text/plain').send('x');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'API key missing' });
  });

  test('raw routes read any Content-Type themselves', async () => {
    const res = await request(app).post('/raw/1').set('content-type', 'text/plain').send('hello \u0000');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ raw: 'hello \u0000' });
  });

  test('a gzip body that does not inflate → 400 with a detail, not a 500', async () => {
    const res = await post(app)
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      .send(Buffer.from('not gzip at all'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Request body could not be read' });
  });
});

describe('U+0000 and lone surrogates', () => {
  let app: Express;
  let calls: string[];
  beforeEach(() => {
    ({ app, calls } = build());
  });
  const json = (raw: string) => post(app, '/things').set('content-type', 'application/json').send(raw);

  test('U+0000 in a body string → 422 string_nul at its field', async () => {
    const res = await json('{"name":"a\\u0000b"}');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [{ loc: ['body', 'name'], msg: expect.stringContaining('U+0000'), type: 'string_nul' }],
    });
    expect(calls).toEqual([]);
  });

  test('nested strings and keys are found with their full loc, one entry each', async () => {
    const res = await json('{"name":"ok","tags":["x","\\u0000"],"meta":{"a\\u0000":1,"deep":[{"v":"\\udc00"}]}}');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'tags', 1], msg: expect.any(String), type: 'string_nul' },
      { loc: ['body', 'meta', 'a\u0000'], msg: expect.stringMatching(/^Key/), type: 'string_nul' },
      { loc: ['body', 'meta', 'deep', 0, 'v'], msg: expect.any(String), type: 'string_unicode' },
    ]);
  });

  test.each([
    ['a high surrogate alone', '"\\ud800"'],
    ['a high surrogate at the end', '"abc\\udbff"'],
    ['a low surrogate alone', '"\\udfff x"'],
    ['two high surrogates', '"\\ud800\\ud800"'],
    ['a reversed pair', '"\\ude00\\ud83d"'],
  ])('%s → 422 string_unicode', async (_name, value) => {
    const res = await json(`{"name":${value}}`);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'name'], msg: expect.any(String), type: 'string_unicode' }]);
  });

  test('a lone surrogate in a key → 422 string_unicode at that key', async () => {
    const res = await json('{"name":"x","\\ud800":1}');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', '\ud800'], msg: expect.any(String), type: 'string_unicode' }]);
  });

  test('a surrogate pair (emoji), other control characters and non-BMP text pass', async () => {
    const res = await json('{"name":"\\ud83d\\ude00 \\u0001 \\t 𝄞 ünï"}');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: '😀 \u0001 \t 𝄞 ünï' });
  });

  test('a top-level array is checked too', async () => {
    const res = await post(app).set('content-type', 'application/json').send('["ok","\\u0000"]');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 1], msg: expect.any(String), type: 'string_nul' }]);
  });

  test(`a body full of bad strings lists at most MAX_INPUT_ERRORS (${MAX_INPUT_ERRORS}) of them`, async () => {
    const res = await post(app).send(Array.from({ length: 5000 }, () => '\u0000'));
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(MAX_INPUT_ERRORS);
    expect(res.body.detail[0]).toEqual({ loc: ['body', 0], msg: expect.any(String), type: 'string_nul' });
  });

  test('U+0000 in a query value or name → 422 string_nul at loc ["query", name]', async () => {
    const res = await request(app).get('/things/1?agent_id=%00&ok=1').set('x-api-key', 'good');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'agent_id'], msg: expect.any(String), type: 'string_nul' }] });
    const repeated = await request(app).get('/things/1?a=x&a=y%00').set('x-api-key', 'good');
    expect(repeated.body.detail).toEqual([{ loc: ['query', 'a', 1], msg: expect.any(String), type: 'string_nul' }]);
    const name = await request(app).get('/things/1?a%00b=1').set('x-api-key', 'good');
    expect(name.body.detail).toEqual([{ loc: ['query', 'a\u0000b'], msg: expect.any(String), type: 'string_nul' }]);
    expect(calls).toEqual([]);
  });

  test('the query is checked before authentication and before raw routes', async () => {
    expect((await request(app).get('/things/1?q=%00')).status).toBe(422);
    expect((await request(app).post('/raw/1?q=%00').send('x')).status).toBe(422);
    expect(calls).toEqual([]);
  });

  test('a lone surrogate in the query (from a parser that can make one) → 422 string_unicode', async () => {
    // Node's own query parsing turns bad UTF-8 into U+FFFD; a parser that honours the legacy %uXXXX escape makes one.
    app.set('query parser', (qs: string) =>
      Object.fromEntries(qs.split('&').map((pair) => pair.split('=').map((s) => unescape(s)))),
    );
    const res = await request(app).get('/things/1?q=%uD800').set('x-api-key', 'good');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'q'], msg: expect.any(String), type: 'string_unicode' }] });
  });

  test.each([
    ['U+0000', '/things/a%00b'],
    ['U+0000 alone', '/things/%00'],
    ['a percent sign that does not decode', '/things/%E0%A4'],
    ['a broken escape', '/things/%ZZ'],
    ['an encoded lone surrogate (CESU-8)', '/things/%ED%A0%80'],
    ['U+0000 in a raw route', '/raw/%00'],
  ])('%s in the path → 404 {"detail":"Not Found"} before any route', async (_name, path) => {
    const res = await (path.startsWith('/raw')
      ? request(app).post(path).send('x')
      : request(app).get(path).set('x-api-key', 'good'));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
    expect(calls).toEqual([]);
  });

  test('percent-encoded ids that decode to ordinary text still reach the route', async () => {
    const res = await request(app).get('/things/%C3%BCber%20%F0%9F%98%80').set('x-api-key', 'good');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe('über 😀');
  });
});

describe('depth and size', () => {
  let app: Express;
  beforeEach(() => {
    ({ app } = build());
  });
  const json = (raw: string) => post(app).set('content-type', 'application/json').send(raw);

  test(`MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) levels are fine; one more → 422 json_too_deep`, async () => {
    expect((await json(nest(MAX_JSON_DEPTH))).status).toBe(200);
    const res = await json(nest(MAX_JSON_DEPTH + 1));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [{ loc: ['body'], msg: expect.stringContaining(String(MAX_JSON_DEPTH)), type: 'json_too_deep' }],
    });
  });

  test('objects count as levels too', async () => {
    const deep = '{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1);
    expect((await json(deep)).body.detail[0].type).toBe('json_too_deep');
  });

  test('200,000 levels (under the size limit) → 422 at once, no stack overflow', async () => {
    const started = Date.now();
    const res = await json(nest(200_000));
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('json_too_deep');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('a wide object (50,000 keys) under the size limit is read', async () => {
    const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_v, i) => [`k${i}`, i]));
    const res = await post(app, '/things').send({ ...wide, name: 'x' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'x' });
  });

  test('a body over the limit → 413 {"detail":"Request body too large"}', async () => {
    const res = await json(JSON.stringify({ name: 'x'.repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body too large' });
  });
});
