import { Router, type Express } from 'express';
import type { Registry } from 'prom-client';
import { createHttpApp, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';

export interface AppDeps {
  logger: Logger;
  registry: Registry;
  readiness: Record<string, ReadinessCheck>;
  /** False once the consumer has stopped consuming. */
  alive: () => boolean;
}

/** The worker's HTTP surface: health, readiness and metrics only. Pure. */
export function createApp(deps: AppDeps): Express {
  return createHttpApp({
    service: 'worker',
    logger: deps.logger,
    routes: Router(),
    readiness: deps.readiness,
    liveness: deps.alive,
    registry: deps.registry,
    openapi: { openapi: '3.0.3', info: { title: 'Worker', version: '1.0.0', description: 'Operations endpoints only.' }, paths: {} },
  }).app;
}
