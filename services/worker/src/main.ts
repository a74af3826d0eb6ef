import { Registry } from 'prom-client';
import { loadConfigOrExit } from '@platform/config';
import { connectMongo, pingMongo } from '@platform/db';
import { listen, onShutdownSignal } from '@platform/http';
import { createLogger } from '@platform/logger';
import { closeWithin, pingRedis, workerConnection } from '@platform/queue';
import { createExecutionRepository, createWebhookStats } from '@platform/scheduling';
import { createApp } from './app';
import { configSchema, type WorkerConfig } from './config';
import { runMetrics, startConsumer } from './consumer';
import { createAgentClient } from './runs/agent.client';
import { createAgentRunProcessor, createGiveUpHandler } from './runs/agent-run.processor';

async function main(): Promise<void> {
  const config = loadConfigOrExit<WorkerConfig>(configSchema, process.env, 'worker');
  const logger = createLogger({ service: 'worker', level: config.LOG_LEVEL });
  const db = await connectMongo({
    uri: config.MONGODB_URI,
    dbName: config.MONGODB_DB,
    serverSelectionTimeoutMS: config.DB_SERVER_SELECTION_TIMEOUT_MS,
    logger,
    appName: 'worker',
  });
  const redis = workerConnection(config.REDIS_URL);
  redis.on('error', (err) => logger.warn('redis error', { err: err.message }));

  const registry = new Registry();
  const executions = createExecutionRepository(db);
  await executions.init();
  const stats = createWebhookStats(db, logger);
  const deps = { executions, stats, clock: () => new Date(), logger };
  const consumer = startConsumer({
    connection: redis,
    process: createAgentRunProcessor({
      ...deps,
      runAgent: createAgentClient({
        baseUrl: config.AGENT_SERVICE_URL,
        internalSecret: config.INTERNAL_SERVICE_SECRET,
        timeoutMs: config.AGENT_RUN_TIMEOUT_MS,
      }),
      onAttempt: runMetrics(registry),
    }),
    giveUp: createGiveUpHandler(deps),
    registry,
    logger,
    settings: {
      prefix: config.QUEUE_PREFIX,
      concurrency: config.WORKER_CONCURRENCY, lockDuration: config.JOB_LOCK_MS, stalledInterval: config.STALLED_INTERVAL_MS },
    staleMs: config.LIVENESS_STALE_MS,
  });

  const app = createApp({
    logger,
    registry,
    readiness: { mongodb: () => pingMongo(db), redis: () => pingRedis(redis) },
    alive: consumer.alive,
  });
  const server = await listen(app, config.PORT, logger);
  onShutdownSignal(logger, async () => {
    // Stop taking jobs, let running ones finish within the grace, then close connections.
    await closeWithin(config.SHUTDOWN_GRACE_MS, () => consumer.worker.close(), () => server.close(1_000));
    await closeWithin(2_000, () => stats.flush(), () => consumer.queue.close(), () => redis.quit());
    await db.close();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`worker: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
