/**
 * Rate limits (contract §1: 429 with Retry-After): per API key on every service's API (wired by openInfra into the
 * key middleware every service mounts), per webhook on the scheduler's public trigger; counted in Redis so replicas
 * share the count; a limiter whose Redis is away lets requests through instead of failing them.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { Router, type Express } from 'express';
import request from 'supertest';

import { commonEnv, Joi, loadConfig, type CommonConfig } from '@platform/config';
import { createHttpApp, createRateLimit, rateLimitPerApiKey, type RateLimit } from '@platform/http';
import { producerConnection, type RedisConnection } from '@platform/queue';
import { openInfra, type Infra } from '@platform/service';
import {
  captureLogger,
  createTestDatabases,
  freePort,
  testInfra,
  uniqueName,
  type TestDatabases,
} from '@platform/testing';

import { createApp as createSchedulerApp } from '../../services/scheduler/src/app';
import { startSchedulerApp, type SchedulerTestApp } from '../../services/scheduler/test/helpers';

const A = { user_id: 'rl-user-a', org_id: 'rl-org' };
const B = { user_id: 'rl-user-b', org_id: 'rl-org' };

/** A service's API as every createApp mounts it: the key middleware from openInfra protecting the routes. */
function apiOf(infra: Pick<Infra, 'auth'>, logger = captureLogger('rl').logger): Express {
  const routes = Router().get('/v1/things', (_req, res) => {
    res.json({ things: [] });
  });
  return createHttpApp({
    service: 'rl',
    logger,
    routes,
    protect: { paths: ['/v1'], middleware: infra.auth.middleware },
  }).app;
}

function expectRateLimited(res: request.Response, windowSec = 60): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ detail: 'Too many requests' });
  const retryAfter = res.headers['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSec);
}

describe('per API key, wired into every service by openInfra', () => {
  let dbs: TestDatabases;
  const replicas: Infra[] = [];
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    dbs = await createTestDatabases('ratelimit');
    keyA = await dbs.mintKey(A);
    keyB = await dbs.mintKey(B);
    const env = {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: dbs.conn.name,
      AUTH_DB: dbs.authDb,
      RATE_LIMIT_PER_KEY_PER_MIN: '3',
      RATE_LIMIT_REDIS_URL: testInfra.redisUrl,
    };
    // The variables come through commonEnv, as every service's config schema reads them.
    const config = loadConfig<CommonConfig & { MONGODB_DB: string }>(
      Joi.object({ ...commonEnv, MONGODB_DB: Joi.string().required() }),
      env,
    );
    expect(config.RATE_LIMIT_PER_KEY_PER_MIN).toBe(3);
    // Two replicas of one service (same name: they count together), and another service (counts apart).
    const service = `rl-${uniqueName('r')}`;
    for (const name of [service, service, `${service}-other`])
      replicas.push(await openInfra({ name, config, logger: captureLogger('rl').logger }));
  });

  afterAll(async () => {
    for (const r of replicas) await r.close();
    await dbs.cleanup();
  });

  it('answers 429 with Retry-After once a key has spent its window, counted across replicas, and not for another key', async () => {
    const [one, two] = replicas.map((r) => apiOf(r));
    const get = (app: Express, key: string) => request(app).get('/v1/things').set('x-api-key', key);
    expect((await get(one!, keyA)).status).toBe(200);
    expect((await get(two!, keyA)).status).toBe(200);
    expect((await get(one!, keyA)).status).toBe(200);
    expectRateLimited(await get(two!, keyA));
    expectRateLimited(await get(one!, keyA));
    expect((await get(two!, keyB)).status).toBe(200);
  });

  it('counts per service: a key that spent its window on one service still has it on another', async () => {
    const [one, , other] = replicas.map((r) => apiOf(r));
    const key = await dbs.mintKey(A);
    const get = (app: Express) => request(app).get('/v1/things').set('x-api-key', key);
    for (let i = 0; i < 3; i++) expect((await get(one!)).status).toBe(200);
    expectRateLimited(await get(one!));
    for (let i = 0; i < 3; i++) expect((await get(other!)).status).toBe(200);
    expectRateLimited(await get(other!));
  });

  it('still answers 403 for a missing or unknown key before counting anything', async () => {
    const app = apiOf(replicas[0]!);
    expect((await request(app).get('/v1/things')).status).toBe(403);
    expect(
      (await request(app).get('/v1/things').set('x-api-key', 'sk_unknownunknownunknownunknownunknown1')).status,
    ).toBe(403);
  });

  it('leaves the ops endpoints unlimited', async () => {
    const app = apiOf(replicas[0]!);
    for (let i = 0; i < 5; i++) expect((await request(app).get('/healthz')).status).toBe(200);
  });
});

describe('the limiter itself', () => {
  const { logger, lines } = captureLogger('rl');
  let redis: RedisConnection;

  beforeAll(async () => {
    redis = producerConnection(testInfra.redisUrl);
    redis.on('error', () => undefined);
    if (redis.status !== 'ready') await new Promise((ready) => redis.once('ready', ready));
  });
  afterAll(() => {
    redis.disconnect();
  });

  async function spend(limit: RateLimit, subject: string, n: number): Promise<number> {
    let limited = 0;
    for (let i = 0; i < n; i++) await limit.consume(subject).catch(() => (limited += 1));
    return limited;
  }

  it('counts per subject in Redis with the window named in Retry-After', async () => {
    const prefix = uniqueName('rl');
    const limit = createRateLimit({ name: 'key', points: 2, windowSec: 30, redis, prefix, logger });
    expect(await spend(limit, 's1', 5)).toBe(3);
    expect(await spend(limit, 's2', 2)).toBe(0);
    const app = createHttpApp({
      service: 'rl',
      logger,
      routes: Router().get('/x', rateLimitPerApiKey(limit), (_q, r) => void r.json({})),
    }).app;
    await request(app).get('/x').set('x-api-key', 'k').expect(200);
    await request(app).get('/x').set('x-api-key', 'k').expect(200);
    expectRateLimited(await request(app).get('/x').set('x-api-key', 'k'), 30);
    expect(await redis.keys(`${prefix}:*`)).toHaveLength(3);
    // The store never sees a key's plaintext, only its hash.
    expect(await redis.keys(`${prefix}:*`)).not.toContain(`${prefix}:key:k`);
  });

  it('is off with 0 points', async () => {
    const limit = createRateLimit({ name: 'key', points: 0, redis, prefix: uniqueName('rl'), logger });
    expect(await spend(limit, 's', 50)).toBe(0);
  });

  it('fails open when its Redis is unreachable, and logs the outage once', async () => {
    const down = producerConnection(`redis://127.0.0.1:${await freePort()}`);
    down.on('error', () => undefined);
    try {
      const limit = createRateLimit({ name: 'down', points: 1, redis: down, prefix: uniqueName('rl'), logger });
      const before = lines.length;
      expect(await spend(limit, 's', 5)).toBe(0);
      const app = createHttpApp({
        service: 'rl',
        logger,
        routes: Router().get('/x', rateLimitPerApiKey(limit), (_q, r) => void r.json({})),
      }).app;
      for (let i = 0; i < 3; i++) expect((await request(app).get('/x').set('x-api-key', 'k')).status).toBe(200);
      expect(lines.slice(before).filter((l) => l.includes('rate limit store unreachable'))).toHaveLength(1);
    } finally {
      down.disconnect();
    }
  });

  it('fails open when its Redis accepts connections but never answers', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const mute = producerConnection(`redis://127.0.0.1:${port}`);
    mute.on('error', () => undefined);
    try {
      const limit = createRateLimit({
        name: 'mute',
        points: 1,
        redis: mute,
        prefix: uniqueName('rl'),
        storeTimeoutMs: 200,
        logger,
      });
      expect(await spend(limit, 's', 3)).toBe(0);
    } finally {
      mute.disconnect();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

describe('per webhook, on the public trigger route', () => {
  let t: SchedulerTestApp;
  let app: Express;
  let redis: RedisConnection;
  let key: string;

  beforeAll(async () => {
    t = await startSchedulerApp();
    redis = producerConnection(testInfra.redisUrl);
    redis.on('error', () => undefined);
    const webhookRateLimit = createRateLimit({
      name: 'webhook',
      points: 2,
      redis,
      prefix: uniqueName('rl'),
      logger: t.deps.logger,
    });
    app = createSchedulerApp({ ...t.deps, webhookRateLimit });
    key = await t.dbs.mintKey(A);
  });
  afterAll(async () => {
    redis.disconnect();
    await t.close();
  });

  async function webhook(agentId: string): Promise<{ id: string; secret_key: string }> {
    const res = await request(app).post('/agent-webhooks/').set('x-api-key', key).send({ agent_id: agentId });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret_key: string };
  }
  const fire = (w: { id: string; secret_key: string }, body: string) =>
    request(app)
      .post(`/webhook-trigger/${w.id}`)
      .set('content-type', 'application/json')
      .set(
        'x-webhook-signature',
        `sha256=${createHmac('sha256', Buffer.from(w.secret_key, 'utf8')).update(body).digest('hex')}`,
      )
      .send(body);

  it('answers 429 with Retry-After past the limit of one webhook, runs nothing more, and leaves other webhooks alone', async () => {
    const agentId = await t.createAgent(key);
    const [hot, cold] = [await webhook(agentId), await webhook(agentId)];
    expect((await fire(hot, '{"n":1}')).status).toBe(202);
    expect((await fire(hot, '{"n":2}')).status).toBe(202);
    expectRateLimited(await fire(hot, '{"n":3}'));
    expect((await fire(cold, '{"n":1}')).status).toBe(202);
    const runs = await request(app).get(`/agent-webhooks/${hot.id}/executions`).set('x-api-key', key);
    expect(runs.body.total).toBe(2);
  });
});
