import './tracing';

import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { openInfra, runService, startMain } from '@platform/service';

import { createApp } from './app';
import { configSchema, type VoiceServiceConfig } from './config';
import { migrateTranscriptStore } from './transcripts/transcript.migration';

async function main(): Promise<void> {
  const config = loadConfigOrExit<VoiceServiceConfig>(configSchema, process.env, 'voice');
  const logger = createLogger({ service: 'voice', level: config.LOG_LEVEL });
  const infra = await openInfra({ name: 'voice', config, logger });
  const retired = await migrateTranscriptStore(infra.db);
  if (retired.indexes.length + retired.tallies > 0) logger.info('removed what earlier versions stored', retired);
  const app = createApp({
    logger,
    db: infra.db,
    auth: infra.auth,
    readiness: infra.readiness,
    jsonLimit: config.JSON_BODY_LIMIT,
  });
  await runService({ name: 'voice', logger, app, port: config.PORT, infra, graceMs: config.SHUTDOWN_GRACE_MS });
}

startMain('voice', main);
