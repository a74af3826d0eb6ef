import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { loadConfigOrExit } from '@platform/config';
import { connectMongo, pingMongo, syncIndexes } from '@platform/db';
import { listen, onShutdownSignal } from '@platform/http';
import { createLogger } from '@platform/logger';
import { closeWithin, createQueue, pingRedis, producerConnection, QUEUE_NAMES } from '@platform/queue';
import {
  createExecutionRepository,
  createReconciler,
  createRepeatStrategy,
  createScheduleRepository,
  createWebhookStats,
  enqueueRun,
  type AgentRunJob,
  type FireJob,
} from '@platform/scheduling';
import { createSecretBox, parseKey } from '@platform/secrets';
import { createAgentClient } from './agents/agent.client';
import { createApp } from './app';
import { createOutboxSweeper } from './triggers/outbox.sweeper';
import { configSchema, type SchedulerServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit<SchedulerServiceConfig>(configSchema, process.env, 'scheduler');
  const logger = createLogger({ service: 'scheduler', level: config.LOG_LEVEL });
  const mongo = { uri: config.MONGODB_URI, serverSelectionTimeoutMS: config.DB_SERVER_SELECTION_TIMEOUT_MS, logger };
  const db = await connectMongo({ ...mongo, dbName: config.MONGODB_DB, appName: 'scheduler' });
  const authDb = await connectMongo({ ...mongo, dbName: config.AUTH_DB, appName: 'scheduler-auth' });
  const keys = createApiKeyRepository(authDb);
  // Lazy, and failing fast while Redis is away: readiness reports it, nothing waits on it.
  const redis = producerConnection(config.REDIS_URL);
  const queues = {
    agentRuns: createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, redis, {}, config.QUEUE_PREFIX),
    httpCalls: createQueue<AgentRunJob>(QUEUE_NAMES.httpCalls, redis, {}, config.QUEUE_PREFIX),
  };
  const fires = createQueue<FireJob>(QUEUE_NAMES.scheduleFires, redis, {}, config.QUEUE_PREFIX, createRepeatStrategy());
  for (const q of [queues.agentRuns, queues.httpCalls, fires]) q.on('error', () => undefined); // reported once below
  let redisDown = false; // log an outage once, not on every reconnect attempt
  redis.on('error', (err: Error) => {
    if (!redisDown) logger.warn('redis unreachable', { message: err.message });
    redisDown = true;
  });
  redis.on('ready', () => {
    if (redisDown) logger.info('redis reachable again');
    redisDown = false;
  });

  const stats = createWebhookStats(db, logger);
  const app = createApp({
    logger,
    db,
    auth: createApiKeyAuth({ keys, cacheTtlMs: config.API_KEY_CACHE_TTL_MS }),
    box: createSecretBox(parseKey(config.WEBHOOK_SECRET_ENCRYPTION_KEY)),
    scheduleBox: createSecretBox(parseKey(config.SCHEDULE_SECRET_ENCRYPTION_KEY)),
    agents: createAgentClient({ baseUrl: config.AGENT_SERVICE_URL, timeoutMs: config.AGENT_SERVICE_TIMEOUT_MS, logger }),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    readiness: { mongodb: () => pingMongo(db), redis: () => pingRedis(redis, 2000) },
    jsonLimit: config.JSON_BODY_LIMIT,
    queues,
    fires,
    stats,
    triggers: { maxAttempts: config.TRIGGER_MAX_ATTEMPTS, enqueueTimeoutMs: config.ENQUEUE_TIMEOUT_MS, retryBackoffMs: config.RETRY_BACKOFF_MS },
  });
  const executions = createExecutionRepository(db);
  // The outbox: runs stored while Redis was down (triggers, fires, manual runs) are enqueued once it is back.
  const sweep = createOutboxSweeper({
    executions,
    enqueue: (exec) => enqueueRun(queues, exec, { timeoutMs: config.ENQUEUE_TIMEOUT_MS, backoffMs: config.RETRY_BACKOFF_MS }),
    hasJob: async (exec) => Boolean(await (exec.kind === 'http_schedule' ? queues.httpCalls : queues.agentRuns).getJob(exec.id)),
    clock: () => new Date(),
    logger,
    graceMs: Math.max(3 * config.ENQUEUE_TIMEOUT_MS, 3000),
  });
  const outbox = setInterval(() => void sweep(), config.OUTBOX_INTERVAL_MS);
  // MongoDB → Redis for cron schedules: at start and every interval (repairs a flushed or restarted Redis).
  const reconcile = createReconciler({
    schedules: createScheduleRepository(db),
    executions,
    queue: fires,
    clock: () => new Date(),
    logger,
    catchUpMs: config.SCHEDULE_CATCH_UP_MS,
    enqueueTimeoutMs: config.ENQUEUE_TIMEOUT_MS,
  });
  const reconcileSafely = () => reconcile().catch((err: unknown) => logger.warn('reconcile failed; next interval retries', { err: (err as Error).message }));
  const reconciler = setInterval(() => void reconcileSafely(), config.RECONCILE_INTERVAL_MS);
  await syncIndexes(db);
  await keys.init();
  void reconcileSafely();

  const server = await listen(app, config.PORT, logger);
  onShutdownSignal(logger, async () => {
    clearInterval(outbox);
    clearInterval(reconciler);
    await server.close(config.SHUTDOWN_GRACE_MS);
    await closeWithin(2_000, () => stats.flush(), ...[queues.agentRuns, queues.httpCalls, fires].map((q) => () => q.close()));
    redis.disconnect();
    await Promise.all([db.close(), authDb.close()]);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`scheduler: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
