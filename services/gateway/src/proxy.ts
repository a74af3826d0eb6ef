import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Router, type Request, type Response } from 'express';

import type { Logger } from '@platform/logger';

import { serviceFor, type ServiceName } from './routes';

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection and are not forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

function forwardHeaders(headers: IncomingHttpHeaders, req: Request): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  out['x-request-id'] = String(req.res?.getHeader('x-request-id') ?? headers['x-request-id'] ?? '');
  out['x-forwarded-for'] = [headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
  out['x-forwarded-proto'] = req.protocol;
  return out;
}

export interface ProxyDeps {
  /** Base URL of each service (a service without one answers 404 here, as an unknown path). */
  upstreams: Partial<Record<ServiceName, URL>>;
  logger: Logger;
  /** How long an upstream may take to start answering; past it → 504. */
  timeoutMs: number;
}

/**
 * Streams each request to the service its path belongs to and streams the answer back unchanged (bodies are never
 * parsed or buffered: signed webhook bytes stay exact, server-sent events flow as they are written). An upstream
 * that cannot be reached → 503 in the shape of the documents' Error component; one that does not answer in time → 504.
 */
export function createProxy(deps: ProxyDeps): Router {
  const router = Router();
  router.use((req: Request, res: Response, next) => {
    const service = serviceFor(req.path);
    const base = service ? deps.upstreams[service] : undefined;
    if (!service || !base) return next();
    const target = new URL(req.originalUrl, base);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send(
      target,
      { method: req.method, headers: forwardHeaders(req.headers, req), timeout: deps.timeoutMs },
      (answer: IncomingMessage) => {
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })));
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      deps.logger.warn('upstream failed', { service, err: err.message });
      if (res.headersSent) return res.destroy();
      const timedOut = err.code === 'ETIMEDOUT';
      res.status(timedOut ? 504 : 503).json({ detail: timedOut ? 'Gateway timeout' : 'Service unavailable' });
    });
    // A client that goes away takes its upstream request with it (e.g. a streaming chat stops the provider call).
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  return router;
}
