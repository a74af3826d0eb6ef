import { join } from 'node:path';
import { Router, type Express } from 'express';

import { withOnBehalfOf, type ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, mountRoutes, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';

import { createDocumentLimiter, type LimiterOptions } from './extraction/document-limiter';
import { createDocumentRunner } from './extraction/document-runner';
import { createExtractionRepository } from './extraction/extraction.repository';
import { extractionRoutes } from './extraction/extraction.routes';
import { createExtractionService, type ExtractionLimits } from './extraction/extraction.service';
import { openapi } from './openapi';

/** Contract §6: larger uploads → 413; more pages → 422. */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
export const MAX_PAGES = 500;

export interface AppDeps {
  logger: Logger;
  /** The OCR service's database (extraction results). */
  db: Connection;
  auth: ApiKeyAuth;
  /** Secret of the internal on-behalf-of path (the rag service reading PDFs for an owner); unset disables that path. */
  internalSecret?: string | null;
  readiness: Record<string, ReadinessCheck>;
  /** Where uploads wait while they are read. */
  uploadDir: string;
  /** Documents read at once, how many may wait and for how long (then 503 with Retry-After). */
  limiter: LimiterOptions;
  /** Per document: time limit, and memory of its process and of each OCR tool. */
  document: { timeoutMs: number; memoryMb: number };
  ocr: Omit<ExtractionLimits, 'maxPages'>;
  /** The document process entry; the compiled one beside this file by default (tests may give another build). */
  workerScript?: string;
  maxFileBytes?: number;
  clock?: () => Date;
  jsonLimit?: string;
}

/** Assembles the OCR service. Pure: every connection arrives in `deps`; document processes start per request. */
export function createApp(deps: AppDeps): Express {
  const service = createExtractionService({
    repo: createExtractionRepository(deps.db),
    runner: createDocumentRunner({
      script: deps.workerScript ?? join(__dirname, 'extraction', 'worker', 'document.worker.js'),
      timeoutMs: deps.document.timeoutMs,
      memoryMb: deps.document.memoryMb,
      keepIdle: deps.limiter.concurrency,
      logger: deps.logger,
    }),
    limiter: createDocumentLimiter(deps.limiter),
    limits: { ...deps.ocr, maxPages: MAX_PAGES },
    clock: deps.clock ?? (() => new Date()),
  });
  const auth = withOnBehalfOf({ apiKey: deps.auth.middleware, secret: deps.internalSecret });
  // The body is multipart, not JSON: a raw router that checks the API key first, before a byte of the body is read.
  const extraction = Router();
  extraction.use('/extract', auth);
  extraction.use(
    mountRoutes(extractionRoutes, {
      service,
      upload: { dir: deps.uploadDir, maxFileBytes: deps.maxFileBytes ?? MAX_FILE_BYTES },
    }),
  );
  return createHttpApp({
    service: 'ocr',
    logger: deps.logger,
    routes: Router(),
    rawRoutes: [extraction],
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
  }).app;
}
