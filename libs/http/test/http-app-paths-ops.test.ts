/** createHttpApp on test routes: paths, security and request-id headers, and the ops endpoints. */
import type { Express } from 'express';
import request from 'supertest';

import type { ReadinessCheck } from '@platform/http';

import { build, flush, parsed, UUID } from './http-app-fixture';

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
    // The event-loop delay, sampled every 50 ms (metrics.ts), is still served under prom-client's names.
    expect(res.text).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  servesApiDocs();
});

/** The API description: /openapi.json (given or default) and the Swagger UI at /docs. */
function servesApiDocs(): void {
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
}
