import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

import { recordError } from './spans';
import { tracer, tracingEnabled } from './state';

/**
 * The platform's HTTP spans, made where the platform's HTTP is: the one Express app every service builds
 * (`libs/http`), the one outbound client (`libs/outbound`) and the gateway's proxy. They read and send the W3C
 * `traceparent` and carry the OpenTelemetry semantic conventions' names, at a fraction of what the generic Node HTTP
 * instrumentation costs per request (it patches every server and client of the process and computes two
 * generations of attributes for each); see libs/tracing/README.md.
 */

/** Paths probes and scrapers ask every few seconds: not worth a trace each. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/livez', '/metrics']);

/**
 * Runs `handle` (the app) for an incoming request inside a SERVER span, a child of the caller's `traceparent` when it
 * sent one. Body parsing and the request log line run in the span's context too, because the parsers the platform
 * uses carry their caller's async context to their callbacks; a listener added by hand to the request's own events
 * would not. The span ends when the response is sent or the connection closes, with the status code; a 5xx marks it
 * failed. `routeOf` names the route the request matched (`/webhook-trigger/:webhook_id`) once it is over: the span is
 * then called `POST /webhook-trigger/:webhook_id`, else by its method alone. Probes and scrapes are not traced.
 */
export function traceIncoming(
  req: IncomingMessage,
  res: ServerResponse,
  handle: () => void,
  routeOf?: () => string | undefined,
): void {
  if (!tracingEnabled()) return handle();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (UNTRACED_PATHS.has(path)) return handle();
  const method = req.method ?? 'GET';
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer().startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    const route = routeOf?.();
    if (route !== undefined) {
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    if (!res.writableFinished) span.setAttribute('http.response.aborted', true);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  res.once('finish', end);
  res.once('close', end);
  // The request's and the response's emitters are not bound to the context (OpenTelemetry's `context.bind` patches
  // every listener added to them, a large part of what tracing cost a request): what reads the body (raw-body behind
  // express's parsers, multer) runs its callback in the context it was called in, as does anything awaited.
  context.with(ctx, handle);
}

/** What an outgoing call reports when it is over: the answer's status, or the error that ended it. */
export type OutgoingDone = (outcome: { status?: number; error?: unknown }) => void;

/**
 * Starts a CLIENT span for an outgoing call made inside a traced operation, and writes its `traceparent` into
 * `headers` (replacing one passed on from elsewhere). Returns the function that ends the span once the answer's
 * headers are in (a status of 400 and over, or an error, marks it failed); undefined, and no header, when this
 * process does not trace or nothing traced is active (such a call would start a trace of one span).
 */
export function traceOutgoing(
  method: string,
  url: URL,
  headers: Record<string, string | string[]>,
): OutgoingDone | undefined {
  if (!tracingEnabled()) return undefined;
  const parent = context.active();
  if (!trace.getSpan(parent)) return undefined;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const span = tracer().startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': url.hostname,
        'server.port': port,
        'url.full': `${url.origin}${url.pathname}`,
      },
    },
    parent,
  );
  propagation.inject(trace.setSpan(parent, span), headers);
  let ended = false;
  return ({ status, error }) => {
    if (ended) return;
    ended = true;
    if (status !== undefined) span.setAttribute('http.response.status_code', status);
    if (error !== undefined) {
      recordError(span, error);
      const code = (error as NodeJS.ErrnoException).code;
      if (typeof code === 'string') span.setAttribute('error.type', code); // ECONNREFUSED says more than Error
    } else if (status !== undefined && status >= 400) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
}
