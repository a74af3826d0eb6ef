import { Router, type Express } from 'express';

import { createHttpApp } from '@platform/http';
import type { Logger } from '@platform/logger';

import { consoleRoutes } from './console';
import { openapi } from './openapi';
import { createProxy, type ProxyDeps } from './proxy';

export interface AppDeps {
  logger: Logger;
  upstreams: ProxyDeps['upstreams'];
  timeoutMs: number;
  /** `TRACE_UI_URL`, for the console's links from runs to their traces; absent or empty: no links. */
  traceUiUrl?: string;
}

/**
 * The gateway: routes by path prefix to the services, streaming requests and answers unchanged. It authenticates
 * nothing itself (each service does: the apiKey security scheme of its OpenAPI document); it adds request ids, the
 * URL checks of the shared layer, health and metrics, and serves the operations console at `/console/`. Pure.
 */
export function createApp(deps: AppDeps): Express {
  return createHttpApp({
    service: 'gateway',
    logger: deps.logger,
    routes: Router(),
    rawRoutes: [
      consoleRoutes({ traceUiUrl: deps.traceUiUrl }),
      createProxy({ upstreams: deps.upstreams, logger: deps.logger, timeoutMs: deps.timeoutMs }),
    ],
    openapi,
  }).app;
}
