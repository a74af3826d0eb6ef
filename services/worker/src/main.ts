import './tracing';

import { Registry } from 'prom-client';

import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { createOutboundClient } from '@platform/outbound';
import { createSecretBox, parseKey } from '@platform/secrets';
import { openStores, runService, startMain } from '@platform/service';

import { boardQueues } from './admin/board-queues';
import { createApp } from './app';
import { configSchema, type WorkerConfig } from './config';
import { createWorkerRuntime } from './runtime';

async function main(): Promise<void> {
  const config = loadConfigOrExit<WorkerConfig>(configSchema, process.env, 'worker');
  const logger = createLogger({ service: 'worker', level: config.LOG_LEVEL });
  // BullMQ consumers wait for Redis rather than fail fast.
  const stores = await openStores({ name: 'worker', config, logger, redis: 'worker' });
  const outbound = createOutboundClient({ allowHosts: config.OUTBOUND_ALLOW_HOSTS });
  const registry = new Registry();
  const runtime = await createWorkerRuntime({
    config,
    db: stores.db,
    redis: stores.redis!,
    registry,
    logger,
    outbound,
    box: createSecretBox(parseKey(config.SCHEDULE_SECRET_ENCRYPTION_KEY)),
  });
  const board = config.WORKER_ADMIN_TOKEN ? boardQueues(stores.redis!, config.QUEUE_PREFIX) : [];
  const admin = config.WORKER_ADMIN_TOKEN ? { token: config.WORKER_ADMIN_TOKEN, queues: board } : undefined;
  const app = createApp({ logger, registry, readiness: stores.readiness, alive: runtime.consumers.alive, admin });

  await runService({
    name: 'worker',
    logger,
    app,
    port: config.PORT,
    infra: stores,
    graceMs: config.SHUTDOWN_GRACE_MS,
    // Stopped in reverse: consumers first (running jobs finish within the grace), then what they wrote through.
    units: [
      () => ({ name: 'outbound client', stop: () => outbound.close() }),
      () => ({
        name: 'queues and statistics',
        stop: () => Promise.all([runtime.flush(), ...[...runtime.queuesToClose, ...board].map((q) => q.close())]),
      }),
      // Runs that fires made at once are waited for once no fire can start another.
      () => ({ name: 'consumers', stop: () => runtime.consumers.close().then(runtime.settle) }),
    ],
  });
}

startMain('worker', main);
