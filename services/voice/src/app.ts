import { Router, type Express } from 'express';

import type { ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, mountRoutes, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';

import { openapi } from './openapi';
import { createTranscriptRepository } from './transcripts/transcript.repository';
import { transcriptNotFound, transcriptRoutes } from './transcripts/transcript.routes';
import { createTranscriptService } from './transcripts/transcript.service';

export interface AppDeps {
  logger: Logger;
  /** The voice service's database. */
  db: Connection;
  auth: ApiKeyAuth;
  readiness: Record<string, ReadinessCheck>;
  clock?: () => Date;
  /** Largest JSON body (an ingest carries a whole call); default 10 MiB. */
  jsonLimit?: string;
}

/** The largest ingest body by default: 10 MiB (413 above). */
export const DEFAULT_JSON_LIMIT = '10mb';

/** Assembles the voice service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const transcripts = createTranscriptService({
    repo: createTranscriptRepository(deps.db),
    clock: deps.clock ?? (() => new Date()),
  });
  const routes = Router();
  routes.use(mountRoutes(transcriptRoutes, transcripts), transcriptNotFound);
  return createHttpApp({
    service: 'voice',
    logger: deps.logger,
    routes,
    protect: { paths: ['/v1'], middleware: deps.auth.middleware },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit ?? DEFAULT_JSON_LIMIT,
  }).app;
}
