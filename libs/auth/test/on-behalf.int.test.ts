import express, { type Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository, principalOf, withOnBehalfOf } from '@platform/auth';
import { createHttpApp } from '@platform/http';
import { captureLogger, createTestDatabases, type TestDatabases } from '@platform/testing';

const SECRET = 'internal-0123456789abcdef0123456789abcdef';
let dbs: TestDatabases;
let bobKey: string;
let lines: string[];

function appWith(secret: string | null): Express {
  const auth = createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 1000 });
  const captured = captureLogger('on-behalf');
  lines = captured.lines;
  const routes = express.Router();
  routes.get('/me', (req, res) => {
    captured.logger.info('who asked', { path: req.path });
    res.json(principalOf(req));
  });
  const protect = {
    paths: ['/me'],
    middleware: withOnBehalfOf({ apiKey: auth.middleware, secret }),
  };
  return createHttpApp({ service: 'on-behalf-test', logger: captured.logger, routes, protect }).app;
}

beforeAll(async () => {
  dbs = await createTestDatabases('onbehalf');
  bobKey = await dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
});
afterAll(() => dbs.cleanup());

describe('with the internal secret configured', () => {
  let app: Express;
  beforeAll(() => {
    app = appWith(SECRET);
  });

  it('no internal header: the API key decides, as before', async () => {
    expect((await request(app).get('/me').set('x-api-key', bobKey)).body).toEqual({ user_id: 'bob', org_id: 'acme' });
    expect((await request(app).get('/me')).body).toEqual({ detail: 'API key missing' });
  });

  const attempts: [string, Record<string, string>][] = [
    ['on-behalf headers alone', { 'x-on-behalf-of-user': 'alice', 'x-on-behalf-of-org': 'acme' }],
    ['on-behalf user with a valid key', { 'x-api-key': '<bob>', 'x-on-behalf-of-user': 'alice' }],
    ['on-behalf org with a valid key', { 'x-api-key': '<bob>', 'x-on-behalf-of-org': 'globex' }],
    [
      'a wrong secret',
      {
        'x-api-key': '<bob>',
        'x-internal-secret': 'guess',
        'x-on-behalf-of-user': 'alice',
        'x-on-behalf-of-org': 'acme',
      },
    ],
    [
      'the secret with one character changed',
      { 'x-internal-secret': SECRET.slice(0, -1) + 'X', 'x-on-behalf-of-user': 'alice', 'x-on-behalf-of-org': 'acme' },
    ],
    ['an empty secret', { 'x-internal-secret': '', 'x-on-behalf-of-user': 'alice', 'x-on-behalf-of-org': 'acme' }],
  ];
  it.each(attempts)('%s → 403 Invalid Permission', async (_name, headers) => {
    const req = request(app).get('/me');
    for (const [k, v] of Object.entries(headers)) req.set(k, v === '<bob>' ? bobKey : v);
    const res = await req;
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid Permission' });
  });

  it('the right secret acts as the named owner, with or without a key of someone else', async () => {
    const earlier = lines.length;
    for (const key of [undefined, bobKey]) {
      const req = request(app)
        .get('/me')
        .set('x-internal-secret', SECRET)
        .set('x-on-behalf-of-user', 'alice')
        .set('x-on-behalf-of-org', 'acme');
      if (key) req.set('x-api-key', key);
      const res = await req;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ user_id: 'alice', org_id: 'acme' });
    }
    // The request's own lines name the owner it acted for.
    const asked = lines
      .slice(earlier)
      .filter((l) => l.includes('"message":"who asked"'))
      .map((l) => JSON.parse(l) as object);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    for (const line of asked) expect(line).toMatchObject({ on_behalf_of_user: 'alice', on_behalf_of_org: 'acme' });
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('the right secret without both owner headers → 422 naming the header', async () => {
    const res = await request(app).get('/me').set('x-internal-secret', SECRET).set('x-on-behalf-of-user', 'alice');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['header', 'x-on-behalf-of-org'], msg: expect.any(String), type: 'missing' },
    ]);
  });
});

it('without a configured secret the internal path is off: even a plausible secret is refused', async () => {
  const app = appWith(null);
  for (const secret of [SECRET, '', 'undefined']) {
    const res = await request(app)
      .get('/me')
      .set('x-internal-secret', secret)
      .set('x-on-behalf-of-user', 'alice')
      .set('x-on-behalf-of-org', 'acme');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid Permission' });
  }
  expect((await request(app).get('/me').set('x-api-key', bobKey)).body).toEqual({ user_id: 'bob', org_id: 'acme' });
});
