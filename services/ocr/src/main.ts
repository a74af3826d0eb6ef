import './tracing';

import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { openInfra, runService, startMain } from '@platform/service';

import { createApp } from './app';
import { configSchema, type OcrServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit<OcrServiceConfig>(configSchema, process.env, 'ocr');
  const logger = createLogger({ service: 'ocr', level: config.LOG_LEVEL });
  const infra = await openInfra({ name: 'ocr', config, logger });
  const app = createApp({
    logger,
    db: infra.db,
    auth: infra.auth,
    internalSecret: config.INTERNAL_SERVICE_SECRET || null,
    readiness: infra.readiness,
    uploadDir: config.UPLOAD_DIR,
    limiter: {
      concurrency: config.MAX_CONCURRENT_DOCUMENTS,
      maxQueued: config.MAX_QUEUED_DOCUMENTS,
      waitMs: config.QUEUE_WAIT_MS,
    },
    document: { timeoutMs: config.DOCUMENT_TIMEOUT_MS, memoryMb: config.DOCUMENT_MEMORY_MB },
    ocr: { languages: config.OCR_LANGUAGES, dpi: config.OCR_DPI, maxOcrPages: config.MAX_OCR_PAGES },
    jsonLimit: config.JSON_BODY_LIMIT,
  });
  await runService({ name: 'ocr', logger, app, port: config.PORT, infra, graceMs: config.SHUTDOWN_GRACE_MS });
}

startMain('ocr', main);
