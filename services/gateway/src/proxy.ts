import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Router, type Request, type Response } from 'express';

import type { Logger } from '@platform/logger';
import { traceOutgoing } from '@platform/tracing';

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
  /**
   * Base URL(s) of each service: one, or the replicas' in a list, taken in turn (round robin). A service without
   * one answers 404 here, as an unknown path.
   */
  upstreams: Partial<Record<ServiceName, URL | readonly URL[]>>;
  logger: Logger;
  /** How long an upstream may take to start answering; past it → 504. */
  timeoutMs: number;
}

/**
 * Streams each request to the service its path belongs to and streams the answer back unchanged (bodies are never
 * parsed or buffered: signed webhook bytes stay exact, server-sent events flow as they are written). A service with
 * several base URLs gets its requests in turn, one replica after the other. A replica whose connection cannot be
 * made (refused, or failing before it connected) got nothing of the request, so the request goes once to the next
 * replica, whatever its method; one that fails after the request was sent is not asked again (the request may have
 * had its effect there) → 502. No replica reachable → 503; one that does not answer in time → 504; all in the shape
 * of the documents' Error component.
 */
export function createProxy(deps: ProxyDeps): Router {
  const router = Router();
  const turns = new Map<ServiceName, number>();
  router.use((req: Request, res: Response, next) => {
    const service = serviceFor(req.path);
    const configured = service ? deps.upstreams[service] : undefined;
    const bases: readonly URL[] = configured === undefined ? [] : configured instanceof URL ? [configured] : configured;
    if (!service || bases.length === 0) return next();
    const first = turns.get(service) ?? 0;
    turns.set(service, (first + 1) % bases.length);
    let current: ClientRequest | undefined;
    let clientGone = false;
    // A client that goes away takes its upstream request with it (e.g. a streaming chat stops the provider call).
    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = true;
      current?.destroy();
    });
    const attempt = (turn: number, retries: number) => {
      const base = bases[turn % bases.length]!;
      const target = new URL(req.originalUrl, base);
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      let connected = false;
      const headers = forwardHeaders(req.headers, req);
      const done = traceOutgoing(req.method, target, headers);
      const upstream = send(
        target,
        { method: req.method, headers, timeout: deps.timeoutMs },
        (answer: IncomingMessage) => {
          done?.({ status: answer.statusCode });
          const headers: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(answer.headers))
            if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
          res.writeHead(answer.statusCode ?? 502, headers);
          answer.pipe(res);
        },
      );
      current = upstream;
      // The body is passed on only once the connection is made: until then nothing has left, so a refused
      // connection can be retried elsewhere with the whole request.
      upstream.on('socket', (socket) => {
        const onConnect = () => {
          connected = true;
          req.pipe(upstream);
        };
        if (socket.connecting) socket.once('connect', onConnect);
        else onConnect(); // a kept-alive connection
      });
      upstream.on('timeout', () =>
        upstream.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })),
      );
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        done?.({ error: err });
        if (clientGone) return;
        const timedOut = err.code === 'ETIMEDOUT';
        deps.logger.warn('upstream failed', { service, upstream: base.origin, err: err.message, sent: connected });
        if (!connected && !timedOut && retries > 0) return attempt(turn + 1, retries - 1);
        if (res.headersSent) return res.destroy();
        if (timedOut) return res.status(504).json({ detail: 'Gateway timeout' });
        if (connected) return res.status(502).json({ detail: 'Bad gateway' });
        res.status(503).json({ detail: 'Service unavailable' });
      });
    };
    attempt(first, bases.length > 1 ? 1 : 0);
  });
  return router;
}
