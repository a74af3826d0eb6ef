import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { openInfra, runService, startMain } from '@platform/service';

import { createApp } from './app';
import { configSchema, type RaiServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit<RaiServiceConfig>(configSchema, process.env, 'rai');
  const logger = createLogger({ service: 'rai', level: config.LOG_LEVEL });
  const infra = await openInfra({ name: 'rai', config, logger });
  const app = createApp({
    logger,
    db: infra.db,
    auth: infra.auth,
    internalSecret: config.INTERNAL_SERVICE_SECRET || null,
    readiness: infra.readiness,
    jsonLimit: config.JSON_BODY_LIMIT,
  });
  await runService({ name: 'rai', logger, app, port: config.PORT, infra, graceMs: config.SHUTDOWN_GRACE_MS });
}

startMain('rai', main);
