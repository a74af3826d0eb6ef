import { createApiKeyAuth, createApiKeyRepository, type ApiKeyAuth, type ApiKeyRepository } from '@platform/auth';
import type { CommonConfig } from '@platform/config';
import { connectMongo, pingMongo, syncIndexes, type Connection } from '@platform/db';
import {
  chainMiddleware,
  createRateLimit,
  DEFAULT_RATE_LIMITS,
  rateLimitPerApiKey,
  type RateLimit,
  type ReadinessCheck,
} from '@platform/http';
import type { Logger } from '@platform/logger';
import {
  disconnectRedis,
  pingRedis,
  producerConnection,
  workerConnection,
  type RedisConnection,
} from '@platform/queue';

/** What a service's config holds for its connections: the common variables, its database, and Redis if it uses it. */
export interface InfraConfig extends CommonConfig {
  MONGODB_DB: string;
  REDIS_URL?: string;
}

export interface InfraOptions {
  /** The service's name (connection names, log lines). */
  name: string;
  config: InfraConfig;
  logger: Logger;
  /**
   * Redis for queues: `producer` fails fast while Redis is away (API processes: a request never waits on it),
   * `worker` waits for it (BullMQ consumers). Omitted: no Redis.
   */
  redis?: 'producer' | 'worker';
}

/** A process's stores, opened in one place: its database and, if asked, Redis. */
export interface Stores {
  /** The service's own database. */
  db: Connection;
  redis?: RedisConnection;
  /** MongoDB (and Redis) reachability, for `/readyz`. */
  readiness: Record<string, ReadinessCheck>;
  /** Creates the indexes of every model compiled on the databases; call once before serving. */
  prepare(): Promise<void>;
  close(): Promise<void>;
}

/** A service with an API: its stores, and the shared API keys with the `x-api-key` middleware. */
export interface Infra extends Stores {
  /** The shared API keys. */
  authDb: Connection;
  keys: ApiKeyRepository;
  /** The `x-api-key` middleware, with the configured in-process cache, then the per-key rate limit. */
  auth: ApiKeyAuth;
  /** The rate limits (`RATE_LIMIT_*`): per API key (already inside `auth`) and per webhook (the scheduler's trigger). */
  rateLimits: { perKey: RateLimit; perWebhook: RateLimit };
}

/**
 * Opens a process's stores: its database (command buffering off and a short server selection, so an outage
 * answers 503 fast), Redis if asked, and readiness checks over them. Only for `main.ts`; `openInfra` for services
 * with an API.
 */
export async function openStores(opts: InfraOptions): Promise<Stores> {
  const { config, logger, name } = opts;
  const db = await connectMongo({
    uri: config.MONGODB_URI,
    serverSelectionTimeoutMS: config.DB_SERVER_SELECTION_TIMEOUT_MS,
    retryWrites: config.MONGODB_RETRY_WRITES,
    readPreference: config.MONGODB_READ_PREFERENCE,
    writeConcern: config.MONGODB_WRITE_CONCERN,
    logger,
    dbName: config.MONGODB_DB,
    appName: name,
  });
  const readiness: Record<string, ReadinessCheck> = { mongodb: () => pingMongo(db) };
  let redis: RedisConnection | undefined;
  if (opts.redis) {
    if (!config.REDIS_URL) throw new Error(`${name}: REDIS_URL is required`);
    redis = opts.redis === 'producer' ? producerConnection(config.REDIS_URL) : workerConnection(config.REDIS_URL);
    watchRedis(redis, logger);
    const conn = redis;
    readiness.redis = () => pingRedis(conn, 2_000);
  }
  return {
    db,
    redis,
    readiness,
    prepare: () => syncIndexes(db),
    async close() {
      if (redis) await disconnectRedis(redis);
      await db.close();
    },
  };
}

/** `openStores`, plus the auth database and the API key middleware every service with an API needs. Only for `main.ts`. */
export async function openInfra(opts: InfraOptions): Promise<Infra> {
  const stores = await openStores(opts);
  const { config, logger, name } = opts;
  const authDb = await connectMongo({
    uri: config.MONGODB_URI,
    serverSelectionTimeoutMS: config.DB_SERVER_SELECTION_TIMEOUT_MS,
    retryWrites: config.MONGODB_RETRY_WRITES,
    readPreference: config.MONGODB_READ_PREFERENCE,
    writeConcern: config.MONGODB_WRITE_CONCERN,
    logger,
    dbName: config.AUTH_DB,
    appName: `${name}-auth`,
  });
  const keys = createApiKeyRepository(authDb);
  const limits = await openRateLimits(opts, stores.redis);
  const keyAuth = createApiKeyAuth({ keys, cacheTtlMs: config.API_KEY_CACHE_TTL_MS });
  return {
    ...stores,
    authDb,
    keys,
    auth: { ...keyAuth, middleware: chainMiddleware(keyAuth.middleware, rateLimitPerApiKey(limits.perKey)) },
    rateLimits: { perKey: limits.perKey, perWebhook: limits.perWebhook },
    async prepare() {
      await stores.prepare();
      await keys.init();
    },
    async close() {
      await stores.close();
      if (limits.ownRedis) await disconnectRedis(limits.ownRedis);
      await authDb.close();
    },
  };
}

/**
 * The rate limits' counters live in `RATE_LIMIT_REDIS_URL`, else the service's own Redis, else this process (each
 * replica then counts its own share). A connection of their own fails fast, so a Redis outage lets requests through.
 */
async function openRateLimits(
  opts: InfraOptions,
  serviceRedis: RedisConnection | undefined,
): Promise<{ perKey: RateLimit; perWebhook: RateLimit; ownRedis?: RedisConnection }> {
  const { config, logger } = opts;
  const url = config.RATE_LIMIT_REDIS_URL || config.REDIS_URL || '';
  const reuse = serviceRedis && (!config.RATE_LIMIT_REDIS_URL || config.RATE_LIMIT_REDIS_URL === config.REDIS_URL);
  const ownRedis = !reuse && url ? producerConnection(url) : undefined;
  if (ownRedis) watchRedis(ownRedis, logger);
  const redis = reuse ? serviceRedis : ownRedis;
  if (!redis) logger.info('rate limits counted per process (no Redis configured for them)');
  else await untilReady(redis, 2_000); // else the first requests would pass uncounted; Redis away at start: they do
  // The limits are per service: each service's replicas count together, apart from the other services'.
  const prefix = `rl:${opts.name}`;
  const perKey = createRateLimit({
    name: 'key',
    points: config.RATE_LIMIT_PER_KEY_PER_MIN ?? DEFAULT_RATE_LIMITS.perKeyPerMin,
    redis,
    logger,
    prefix,
  });
  const perWebhook = createRateLimit({
    name: 'webhook',
    points: config.RATE_LIMIT_PER_WEBHOOK_PER_MIN ?? DEFAULT_RATE_LIMITS.perWebhookPerMin,
    redis,
    logger,
    prefix,
  });
  return { perKey, perWebhook, ownRedis };
}

/** Resolves when `redis` is ready, or after `ms` whatever its state. */
async function untilReady(redis: RedisConnection, ms: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
  });
}

/** Logs a Redis outage once when it starts and once when it ends, not at every reconnect attempt. */
function watchRedis(redis: RedisConnection, logger: Logger): void {
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) logger.warn('redis unreachable', { message: err.message });
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis reachable again');
    down = false;
  });
}
