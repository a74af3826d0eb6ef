import { Router, type Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository, principalOf, withBearerKey } from '@platform/auth';
import { createHttpApp } from '@platform/http';
import { captureLogger, createTestDatabases, type TestDatabases } from '@platform/testing';

let dbs: TestDatabases;
let app: Express;
let key: string;
let other: string;

/** `/open/*` takes Bearer keys, `/closed/*` only x-api-key; both answer the caller. */
beforeAll(async () => {
  dbs = await createTestDatabases('authbearer');
  const repo = createApiKeyRepository(dbs.authConn);
  await repo.init();
  key = await dbs.mintKey({ user_id: 'u-bearer', org_id: 'o-bearer' });
  other = await dbs.mintKey({ user_id: 'u-other', org_id: 'o-bearer' });
  const auth = createApiKeyAuth({ keys: repo, cacheTtlMs: 30_000 });
  const routes = Router();
  routes.get(['/v/open/me', '/v/closed/me'], (req, res) => {
    res.json(principalOf(req));
  });
  app = createHttpApp({
    service: 'bearer-test',
    logger: captureLogger('bearer-test').logger,
    routes,
    protect: { paths: ['/v'], middleware: withBearerKey(auth.middleware, (req) => req.path.startsWith('/open/')) },
  }).app;
});

afterAll(async () => {
  await dbs?.cleanup();
});

test('on a selected route, Authorization: Bearer <key> authenticates as the key (scheme in any case)', async () => {
  for (const header of [`Bearer ${key}`, `bearer ${key}`, `BEARER  ${key}`]) {
    const res = await request(app).get('/v/open/me').set('authorization', header);
    expect([res.status, res.body]).toEqual([200, { user_id: 'u-bearer', org_id: 'o-bearer' }]);
  }
});

test('x-api-key wins over Authorization when both come', async () => {
  const res = await request(app).get('/v/open/me').set('x-api-key', other).set('authorization', `Bearer ${key}`);
  expect(res.body).toEqual({ user_id: 'u-other', org_id: 'o-bearer' });
});

test('a bad Bearer key is refused like a bad x-api-key; another scheme or an empty token is a missing key', async () => {
  const bad = await request(app).get('/v/open/me').set('authorization', 'Bearer sk_nope');
  expect([bad.status, bad.body]).toEqual([403, { detail: 'Invalid Permission' }]);
  for (const header of [`Basic ${key}`, 'Bearer ', key]) {
    const res = await request(app).get('/v/open/me').set('authorization', header);
    expect([res.status, res.body]).toEqual([403, { detail: 'API key missing' }]);
  }
});

test('a route the predicate does not select ignores Authorization', async () => {
  const res = await request(app).get('/v/closed/me').set('authorization', `Bearer ${key}`);
  expect([res.status, res.body]).toEqual([403, { detail: 'API key missing' }]);
  expect((await request(app).get('/v/closed/me').set('x-api-key', key)).status).toBe(200);
});
