import { Router, type Express } from 'express';
import type { Registry } from 'prom-client';

import { createHttpApp, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';

import { createQueueBoard, type QueueBoardOptions } from './admin/queue-board';
import { workerOpenapi } from './openapi';

export interface AppDeps {
  logger: Logger;
  registry: Registry;
  readiness: Record<string, ReadinessCheck>;
  /** False once the consumer has stopped consuming. */
  alive: () => boolean;
  /** The queue dashboard at /admin/queues (WORKER_ADMIN_TOKEN); absent → not mounted. */
  admin?: QueueBoardOptions;
}

/** The worker's HTTP surface: health, readiness, metrics, and the queue dashboard when configured. Pure. */
export function createApp(deps: AppDeps): Express {
  return createHttpApp({
    service: 'worker',
    logger: deps.logger,
    routes: Router(),
    rawRoutes: deps.admin ? [createQueueBoard(deps.admin)] : [],
    readiness: deps.readiness,
    liveness: deps.alive,
    registry: deps.registry,
    openapi: workerOpenapi({ admin: deps.admin !== undefined }),
  }).app;
}
