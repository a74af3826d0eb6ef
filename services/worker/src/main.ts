import { Registry } from 'prom-client';
import { loadConfigOrExit } from '@platform/config';
import { connectMongo, pingMongo } from '@platform/db';
import { listen, onShutdownSignal } from '@platform/http';
import { createLogger } from '@platform/logger';
import { createOutboundClient } from '@platform/outbound';
import { closeWithin, pingRedis, workerConnection } from '@platform/queue';
import { createSecretBox, parseKey } from '@platform/secrets';
import { createApp } from './app';
import { configSchema, type WorkerConfig } from './config';
import { createWorkerRuntime } from './runtime';

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
  const outbound = createOutboundClient({ allowHosts: config.OUTBOUND_ALLOW_HOSTS });

  const registry = new Registry();
  const runtime = await createWorkerRuntime({ config, db, redis, registry, logger, outbound, box: createSecretBox(parseKey(config.SCHEDULE_SECRET_ENCRYPTION_KEY)) });

  const app = createApp({
    logger,
    registry,
    readiness: { mongodb: () => pingMongo(db), redis: () => pingRedis(redis) },
    alive: runtime.consumers.alive,
  });
  const server = await listen(app, config.PORT, logger);
  onShutdownSignal(logger, async () => {
    // Stop taking jobs, let running ones finish within the grace, then close connections.
    await closeWithin(config.SHUTDOWN_GRACE_MS, () => runtime.consumers.close(), () => server.close(1_000));
    await closeWithin(2_000, () => runtime.flush(), ...runtime.queuesToClose.map((q) => () => q.close()), () => redis.quit());
    outbound.close();
    await db.close();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`worker: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
