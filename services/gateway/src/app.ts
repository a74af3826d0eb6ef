import { Router, type Express } from 'express';
import { createHttpApp } from '@platform/http';
import type { Logger } from '@platform/logger';
import { createProxy, type ProxyDeps } from './proxy';
import { ROUTE_TABLE } from './routes';

export interface AppDeps {
  logger: Logger;
  upstreams: ProxyDeps['upstreams'];
  timeoutMs: number;
}

const openapi = {
  openapi: '3.0.3',
  info: {
    title: 'Gateway',
    version: '1.0.0',
    description: `One host for the whole API (contract §7): ${ROUTE_TABLE.map((r) => `${r.prefixes.join(', ')} → ${r.service}`).join('; ')}. Each service's own document is at its /openapi.json.`,
  },
  paths: {},
};

/**
 * The gateway: routes by path prefix to the services, streaming requests and answers unchanged. It authenticates
 * nothing itself (each service does, contract §1); it adds request ids, the URL checks of the shared layer, health
 * and metrics. Pure.
 */
export function createApp(deps: AppDeps): Express {
  return createHttpApp({
    service: 'gateway',
    logger: deps.logger,
    routes: Router(),
    rawRoutes: [createProxy({ upstreams: deps.upstreams, logger: deps.logger, timeoutMs: deps.timeoutMs })],
    openapi,
  }).app;
}
