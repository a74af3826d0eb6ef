import type { Request, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

import { registerTracingMetrics } from '@platform/tracing';

/**
 * Milliseconds between the event-loop delay samples behind `nodejs_eventloop_lag_*` (prom-client's default is 10).
 * Each sample is a timer that wakes the process: at 10 ms an idle replica wakes 100 times a second for it alone
 * (about 3 ms of CPU a second more than at 50, measured). Every block of the loop at least this long still delays a
 * sample and is seen; shorter ones are sampled.
 */
const EVENT_LOOP_SAMPLE_MS = 50;

/** A per-app registry with process metrics, HTTP request count/latency by route and status, and tracing's counters. */
export function createMetrics(
  service: string,
  existing?: Registry,
): { registry: Registry; middleware: RequestHandler } {
  const registry = existing ?? new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  registerTracingMetrics(registry);
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const end = latency.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method, route: matchedRoute(req) ?? 'unmatched', status: String(res.statusCode) };
      requests.inc(labels);
      end(labels);
    });
    next();
  };
  return { registry, middleware };
}

/**
 * The route template the request matched (never the raw path, which would explode label cardinality), or undefined
 * when none did: the metrics' `route` label and the name of the request's span.
 */
export function matchedRoute(req: Request): string | undefined {
  const path = (req.route as { path?: string } | undefined)?.path;
  return path === undefined ? undefined : `${req.baseUrl}${String(path)}`;
}
