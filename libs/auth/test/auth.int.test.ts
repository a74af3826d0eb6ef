import { createHash } from 'node:crypto';
import express, { type Express } from 'express';
import request from 'supertest';

import {
  createApiKeyAuth,
  createApiKeyRepository,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  PREFIX_LENGTH,
  principalOf,
  type ApiKeyRepository,
  type KeyLookup,
  type Principal,
} from '@platform/auth';
import { createHttpApp } from '@platform/http';
import { captureLogger, createTestDatabases, type TestDatabases } from '@platform/testing';

const KEY_FORMAT = /^sk_[0-9A-Za-z]{40}$/;

let dbs: TestDatabases;
let repo: ApiKeyRepository;

beforeAll(async () => {
  dbs = await createTestDatabases('authint');
  repo = createApiKeyRepository(dbs.authConn);
  await repo.init();
});

afterAll(async () => {
  await dbs?.cleanup();
});

/** A lookup that counts how often the database is asked. */
function counting(inner: KeyLookup): KeyLookup & { calls: number } {
  const self = {
    calls: 0,
    async findActiveByHash(hash: string) {
      self.calls++;
      return inner.findActiveByHash(hash);
    },
  };
  return self;
}

/** An app with one protected route answering the caller's principal. */
function appWith(auth: ReturnType<typeof createApiKeyAuth>): Express {
  const routes = express.Router();
  routes.get('/me', auth.middleware, (req, res) => {
    res.json(principalOf(req));
  });
  routes.post('/me', auth.middleware, (req, res) => {
    res.status(201).json({ principal: principalOf(req), body: req.body as unknown });
  });
  return createHttpApp({ service: 'auth-test', logger: captureLogger('auth-test').logger, routes }).app;
}

/** The issued key: its shape, prefix and hash, and the check that accepts only that shape. */
function issuesWellFormedKeys(): void {
  test('generateApiKey: sk_ + 40 base62, prefix and SHA-256 hash', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(KEY_FORMAT);
    expect(prefix).toBe(key.slice(0, PREFIX_LENGTH));
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toBe(hash);
    const many = new Set(Array.from({ length: 500 }, () => generateApiKey().key));
    expect(many.size).toBe(500);
  });

  test('isWellFormedApiKey accepts only the issued shape', () => {
    expect(isWellFormedApiKey(generateApiKey().key)).toBe(true);
    for (const bad of [
      '',
      'sk_',
      'sk_short',
      `pk_${'a'.repeat(40)}`,
      `sk_${'a'.repeat(39)}`,
      `sk_${'a'.repeat(41)}`,
      `sk_${'a'.repeat(39)}-`,
      ` sk_${'a'.repeat(40)}`,
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });
}

/** What the repository keeps of a key (the hash and the prefix, unique) and what it resolves to. */
function storesOnlyHashAndPrefix(): void {
  test('a minted key resolves to {user_id, org_id}', async () => {
    const key = await dbs.mintKey({ user_id: 'u-mint', org_id: 'o-mint' });
    expect(key).toMatch(KEY_FORMAT);
    expect(await repo.findActiveByHash(hashApiKey(key))).toEqual({ user_id: 'u-mint', org_id: 'o-mint' });
    const auth = createApiKeyAuth({ keys: repo, cacheTtlMs: 1000 });
    expect(await auth.resolve(key)).toEqual({ user_id: 'u-mint', org_id: 'o-mint' });
  });

  test('create returns the key once and a record without it', async () => {
    const { key, record } = await repo.create({ user_id: 'u-rec', org_id: 'o-rec' }, 'ci key');
    expect(record).toEqual({
      prefix: key.slice(0, PREFIX_LENGTH),
      user_id: 'u-rec',
      org_id: 'o-rec',
      name: 'ci key',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      revoked_at: null,
    });
    expect(JSON.stringify(record)).not.toContain(key);
    const listed = await repo.list();
    expect(listed.find((r) => r.prefix === record.prefix)).toEqual(record);
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(JSON.stringify(listed)).not.toContain(hashApiKey(key));
  });

  test('only the SHA-256 hash and the prefix are stored, never the plaintext', async () => {
    const keys = [
      await dbs.mintKey({ user_id: 'u-raw1', org_id: 'o-raw' }),
      await dbs.mintKey({ user_id: 'u-raw2', org_id: 'o-raw' }),
      (await repo.create({ user_id: 'u-raw3', org_id: 'o-raw' }, 'named')).key,
    ];
    const docs = await dbs.authConn.db!.collection('api_keys').find({}).toArray();
    expect(docs.length).toBeGreaterThanOrEqual(keys.length);
    const dump = JSON.stringify(docs);
    for (const key of keys) {
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice(PREFIX_LENGTH)); // not even the secret part
      const doc = docs.find((d) => d.key_hash === hashApiKey(key));
      expect(doc).toBeDefined();
      expect(doc!.prefix).toBe(key.slice(0, PREFIX_LENGTH));
      expect(doc!.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(Object.keys(doc!).sort()).toEqual([
        '_id',
        'created_at',
        'key_hash',
        'name',
        'org_id',
        'prefix',
        'revoked_at',
        'user_id',
      ]);
    }
  });

  test('the hash and the prefix are unique in the collection', async () => {
    const key = await dbs.mintKey({ user_id: 'u-uniq', org_id: 'o-uniq' });
    const raw = dbs.authConn.db!.collection('api_keys');
    await expect(
      raw.insertOne({
        key_hash: hashApiKey(key),
        prefix: 'sk_different',
        user_id: 'x',
        org_id: 'y',
        created_at: new Date(),
        revoked_at: null,
      }),
    ).rejects.toMatchObject({ code: 11000 });
    await expect(
      raw.insertOne({
        key_hash: 'f'.repeat(64),
        prefix: key.slice(0, PREFIX_LENGTH),
        user_id: 'x',
        org_id: 'y',
        created_at: new Date(),
        revoked_at: null,
      }),
    ).rejects.toMatchObject({ code: 11000 });
  });
}

/** A revoked key and one never issued resolve to nothing. */
function revokedAndUnknownKeysDoNotResolve(): void {
  test('revoke by prefix: the key stops resolving; a second revoke reports false', async () => {
    const key = await dbs.mintKey({ user_id: 'u-rev', org_id: 'o-rev' });
    const prefix = key.slice(0, PREFIX_LENGTH);
    expect(await repo.revoke(prefix)).toBe(true);
    expect(await repo.findActiveByHash(hashApiKey(key))).toBeNull();
    expect(await repo.revoke(prefix)).toBe(false);
    expect(await repo.revoke('sk_nosuchkey')).toBe(false);
    const rec = (await repo.list()).find((r) => r.prefix === prefix);
    expect(rec?.revoked_at).toMatch(/Z$/);
  });

  test('an unknown well-formed key does not resolve', async () => {
    expect(await repo.findActiveByHash(hashApiKey(generateApiKey().key))).toBeNull();
  });
}

describe('api keys', () => {
  issuesWellFormedKeys();
  storesOnlyHashAndPrefix();
  revokedAndUnknownKeysDoNotResolve();
});

describe('auth middleware', () => {
  let app: Express;
  let owner: Principal;
  let key: string;

  beforeAll(async () => {
    owner = { user_id: 'u-mw', org_id: 'o-mw' };
    key = await dbs.mintKey(owner);
    app = appWith(createApiKeyAuth({ keys: repo, cacheTtlMs: 30_000 }));
  });

  test('a valid key → the route sees {user_id, org_id}', async () => {
    const res = await request(app).get('/me').set('x-api-key', key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(owner);
  });

  test('missing header → 403 {"detail":"API key missing"}', async () => {
    const res = await request(app).get('/me');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'API key missing' });
  });

  test('empty header → 403 {"detail":"API key missing"}', async () => {
    const res = await request(app).get('/me').set('x-api-key', '');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'API key missing' });
  });

  test.each([
    ['garbage', 'not-a-key'],
    ['wrong prefix', `pk_${'A'.repeat(40)}`],
    ['too short', 'sk_abc'],
    ['bad characters', `sk_${'a'.repeat(39)}!`],
    ['Bearer form', 'Bearer sk_' + 'a'.repeat(40)],
  ])('malformed key (%s) → 403 {"detail":"Invalid Permission"}', async (_name, bad) => {
    const res = await request(app).get('/me').set('x-api-key', bad);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid Permission' });
  });

  test('unknown well-formed key → 403 {"detail":"Invalid Permission"}', async () => {
    const res = await request(app).get('/me').set('x-api-key', generateApiKey().key);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid Permission' });
  });

  test('a key in the query string is not accepted', async () => {
    for (const q of ['api_key', 'x-api-key', 'apikey', 'key']) {
      const res = await request(app).get(`/me?${q}=${key}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'API key missing' });
    }
  });

  test('auth runs before the body is validated or used; user_id in a body is ignored', async () => {
    const denied = await request(app).post('/me').send({ user_id: 'someone-else' });
    expect(denied.status).toBe(403);
    const ok = await request(app).post('/me').set('x-api-key', key).send({ user_id: 'someone-else', org_id: 'other' });
    expect(ok.status).toBe(201);
    expect(ok.body.principal).toEqual(owner);
  });

  test('a revoked key is refused once no longer cached', async () => {
    const k = await dbs.mintKey({ user_id: 'u-mw2', org_id: 'o-mw2' });
    const fresh = appWith(createApiKeyAuth({ keys: repo, cacheTtlMs: 0 }));
    expect((await request(fresh).get('/me').set('x-api-key', k)).status).toBe(200);
    await dbs.revokeKey(k);
    const res = await request(fresh).get('/me').set('x-api-key', k);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid Permission' });
  });

  test('principalOf outside the middleware is a 403', () => {
    expect(() => principalOf({} as express.Request)).toThrow('API key missing');
  });
});

describe('auth cache', () => {
  test('a revoked key keeps working while cached and stops after the TTL', async () => {
    const owner = { user_id: 'u-ttl', org_id: 'o-ttl' };
    const key = await dbs.mintKey(owner);
    let t = 1_000_000;
    const lookups = counting(repo);
    const auth = createApiKeyAuth({ keys: lookups, cacheTtlMs: 5_000, now: () => t });
    const app = appWith(auth);

    expect((await request(app).get('/me').set('x-api-key', key)).body).toEqual(owner);
    expect(lookups.calls).toBe(1);

    await dbs.revokeKey(key);
    t += 4_999;
    const cached = await request(app).get('/me').set('x-api-key', key);
    expect(cached.status).toBe(200);
    expect(cached.body).toEqual(owner);
    expect(lookups.calls).toBe(1); // served from cache

    t += 2; // past the TTL
    const after = await request(app).get('/me').set('x-api-key', key);
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ detail: 'Invalid Permission' });
    expect(lookups.calls).toBe(2);
  });

  test('cacheTtlMs above 30000 is capped at 30000', async () => {
    const owner = { user_id: 'u-cap', org_id: 'o-cap' };
    const key = await dbs.mintKey(owner);
    let t = 5_000_000;
    const auth = createApiKeyAuth({ keys: repo, cacheTtlMs: 10 * 60_000, now: () => t });
    expect(await auth.resolve(key)).toEqual(owner);
    await dbs.revokeKey(key);
    t += 29_999;
    expect(await auth.resolve(key)).toEqual(owner);
    t += 2; // 30 001 ms after the lookup: beyond the cap, though well within the asked-for 10 minutes
    expect(await auth.resolve(key)).toBeNull();
  });

  test('clear() forgets cached keys at once', async () => {
    const key = await dbs.mintKey({ user_id: 'u-clear', org_id: 'o-clear' });
    const t = 9_000_000;
    const auth = createApiKeyAuth({ keys: repo, cacheTtlMs: 30_000, now: () => t });
    expect(await auth.resolve(key)).not.toBeNull();
    await dbs.revokeKey(key);
    expect(await auth.resolve(key)).not.toBeNull();
    auth.clear();
    expect(await auth.resolve(key)).toBeNull();
  });

  test('malformed keys never reach the database; unknown keys are remembered only briefly', async () => {
    let t = 0;
    const lookups = counting(repo);
    const auth = createApiKeyAuth({ keys: lookups, cacheTtlMs: 30_000, negativeTtlMs: 2_000, now: () => t });
    expect(await auth.resolve('garbage')).toBeNull();
    expect(await auth.resolve(`sk_${'a'.repeat(39)}`)).toBeNull();
    expect(lookups.calls).toBe(0);

    const unknown = generateApiKey().key;
    expect(await auth.resolve(unknown)).toBeNull();
    expect(await auth.resolve(unknown)).toBeNull();
    expect(lookups.calls).toBe(1);
    t += 2_001;
    expect(await auth.resolve(unknown)).toBeNull();
    expect(lookups.calls).toBe(2);
  });

  test('the negative TTL never exceeds the positive TTL', async () => {
    let t = 0;
    const lookups = counting(repo);
    const auth = createApiKeyAuth({ keys: lookups, cacheTtlMs: 100, negativeTtlMs: 60_000, now: () => t });
    const unknown = generateApiKey().key;
    await auth.resolve(unknown);
    t += 101;
    await auth.resolve(unknown);
    expect(lookups.calls).toBe(2);
  });

  test('the cache is bounded by maxEntries', async () => {
    const t = 0;
    const lookups = counting(repo);
    const auth = createApiKeyAuth({ keys: lookups, cacheTtlMs: 30_000, maxEntries: 2, now: () => t });
    const [a, b, c] = [generateApiKey().key, generateApiKey().key, generateApiKey().key];
    await auth.resolve(a!);
    await auth.resolve(b!);
    await auth.resolve(c!); // evicts a
    expect(lookups.calls).toBe(3);
    await auth.resolve(c!);
    await auth.resolve(b!);
    expect(lookups.calls).toBe(3);
    await auth.resolve(a!);
    expect(lookups.calls).toBe(4);
  });

  test('a database outage during lookup → 503, not 403 or 500', async () => {
    const down: KeyLookup = {
      async findActiveByHash() {
        const err = new Error('Server selection timed out after 3000 ms');
        err.name = 'MongoServerSelectionError';
        throw err;
      },
    };
    const app = appWith(createApiKeyAuth({ keys: down, cacheTtlMs: 30_000 }));
    const res = await request(app).get('/me').set('x-api-key', generateApiKey().key);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Service unavailable' });
  });
});
