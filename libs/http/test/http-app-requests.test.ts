/** createHttpApp on test routes: body parsing, the shapes of errors, and validate() of bodies and queries. */
import type { Express } from 'express';
import request from 'supertest';

import { build, flush, parsed } from './http-app-fixture';

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
