import { randomUUID } from 'node:crypto';
import express, { type Express, type RequestHandler, type Router } from 'express';
import helmet from 'helmet';
import type { Registry } from 'prom-client';
import swaggerUi from 'swagger-ui-express';

import { withLogContext, type Logger } from '@platform/logger';
import { traceIncoming } from '@platform/tracing';

import { errorHandler, notFoundHandler, type ErrorExtras } from './error-handler';
import { jsonBodyParser, rejectBadJson, rejectBadUrl, requireJsonContentTypeOn } from './input-guards';
import { createMetrics, matchedRoute } from './metrics';

/** A named readiness check: resolves true when the dependency answers. */
export type ReadinessCheck = () => Promise<boolean>;

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  /** The service's API. Mounted after the JSON parser. */
  routes: Router;
  /**
   * Routers that need the raw body (e.g. signed webhooks). Mounted before the JSON parser and its Content-Type
   * and string checks, which they apply themselves; the path and query checks still run before them.
   */
  rawRoutes?: Router[];
  readiness?: Record<string, ReadinessCheck>;
  /** Liveness beyond "the process answers" (e.g. a worker still consuming); false → /healthz 503. */
  liveness?: () => boolean | Promise<boolean>;
  openapi?: Record<string, unknown>;
  /** Largest JSON body (bytes or a size string such as "1mb"); larger → 413. */
  jsonLimit?: string | number;
  /** Authentication for the API paths; runs before the body is parsed, so unauthenticated bodies are never read. */
  protect?: { paths: string[]; middleware: RequestHandler };
  /** Extra metrics registered by the service; the HTTP metrics are added to it. */
  registry?: Registry;
  /**
   * Fields an error answer carries beside `detail` on the requests it picks (e.g. OpenAI's `error` object on an
   * OpenAI-protocol route, so that those clients report the reason): see errorHandler.
   */
  errorExtras?: ErrorExtras;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a caller's `x-request-id` when it is sane, else makes one; echoes it and puts it on every log line. */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', requestId);
    withLogContext({ requestId }, () => {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        // Below `info`, where services run: the line is not even built then.
        if (!logger.isLevelEnabled('http')) return;
        logger.http('request', {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        });
      });
      next();
    });
  };
}

/**
 * Assembles a service's express app with everything the API asks of every service: request ids, helmet,
 * no x-powered-by, JSON body limit, both trailing-slash forms (non-strict routing, no redirect), the error
 * shapes, /healthz, /readyz, /metrics, /openapi.json and /docs. Bad input never reaches a route as such: a path
 * with U+0000 or bytes that do not decode → 404; U+0000 or lone surrogates in the query or a JSON body → 422;
 * a body that is not JSON → 415; JSON nested deeper than MAX_JSON_DEPTH → 422. Pure: opens nothing.
 */
export function createHttpApp(opts: HttpAppOptions): { app: Express; registry: Registry } {
  const app = express();
  app.disable('x-powered-by');
  app.set('strict routing', false);
  app.set('trust proxy', false);
  const { registry, middleware } = createMetrics(opts.service, opts.registry);
  // First, so that everything after it (log lines included) belongs to the request's span when tracing is on.
  app.use((req, res, next) =>
    traceIncoming(
      req,
      res,
      () => next(),
      () => matchedRoute(req),
    ),
  );
  app.use(requestContext(opts.logger));
  app.use(middleware);
  app.use(helmet({ contentSecurityPolicy: { useDefaults: true, directives: { 'upgrade-insecure-requests': null } } }));
  app.use(rejectBadUrl);

  app.get('/healthz', async (_req, res) => {
    const alive = opts.liveness
      ? await Promise.resolve()
          .then(opts.liveness)
          .catch(() => false)
      : true;
    res.status(alive ? 200 : 503).json({ status: alive ? 'ok' : 'unhealthy' });
  });
  app.get('/readyz', async (_req, res) => {
    const entries = await Promise.all(
      Object.entries(opts.readiness ?? {}).map(
        async ([name, check]) =>
          [
            name,
            await Promise.resolve()
              .then(check)
              .catch(() => false),
          ] as const,
      ),
    );
    const checks = Object.fromEntries(entries.map(([n, ok]) => [n, ok ? 'ok' : 'unavailable']));
    const ready = entries.every(([, ok]) => ok);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.set('content-type', registry.contentType).send(await registry.metrics());
  });
  const openapi = opts.openapi ?? { openapi: '3.0.3', info: { title: opts.service, version: '0.1.0' }, paths: {} };
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  app.use('/docs', swaggerUi.serve);
  app.get(['/docs', '/docs/'], swaggerUi.setup(openapi, { customSiteTitle: `${opts.service} API` }));

  for (const router of opts.rawRoutes ?? []) app.use(router);
  if (opts.protect) app.use(opts.protect.paths, opts.protect.middleware);
  app.use(requireJsonContentTypeOn(opts.routes));
  app.use(jsonBodyParser(opts.jsonLimit ?? '1mb'));
  app.use(rejectBadJson);
  app.use(opts.routes);
  app.use(notFoundHandler);
  app.use(errorHandler(opts.logger, opts.errorExtras));
  return { app, registry };
}
