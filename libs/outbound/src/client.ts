import type { IncomingHttpHeaders } from 'node:http';

import { blockedReason, isIpLiteral } from './address';
import { isAllowed, parseAllowHosts, type AllowEntry } from './allow-list';
import { OutboundBlockedError, OutboundError, OutboundNetworkError, OutboundTimeoutError } from './errors';
import { createGuardedAgents } from './guard';
import { streamResponse } from './stream';
import { exchange, readAll, type RawResponse } from './transport';
import type { OutboundRequest, OutboundStreamRequest, OutboundStreamResponse } from './types';

export type { OutboundRequest };

export interface OutboundClientOptions {
  /** Hosts (or host:port pairs) that may be reached even though they are loopback or private: parsed entries or the raw env value. */
  allowHosts?: AllowEntry[] | string;
  /** Default time limit of one call, redirects included. */
  timeoutMs?: number;
  /** Default cap on a response body (after decompression). */
  maxResponseBytes?: number;
  /** Default number of redirects followed; each hop is checked like the first request. */
  maxRedirects?: number;
  userAgent?: string;
}

/** Any status is a response (callers decide what a 4xx or 5xx means); failures to get one throw an OutboundError. */
export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** Parsed JSON when the body is JSON, else the text. */
  data: unknown;
  /** The URL that answered, after redirects. */
  url: string;
}

export interface OutboundClient {
  request(req: OutboundRequest): Promise<OutboundResponse>;
  /**
   * Like `request`, but resolves once the headers arrived and hands over the body as it streams. The time limit
   * covers the whole call, body included; `maxResponseBytes` caps the bytes read.
   */
  stream(req: OutboundStreamRequest): Promise<OutboundStreamResponse>;
  /** Closes pooled keep-alive connections. */
  close(): void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

/** Refuses a URL before any socket exists: wrong scheme, or a literal address that is not public and not allowed. */
function checkUrl(url: URL, allow: AllowEntry[]): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundBlockedError(url.host, `scheme ${url.protocol} is not allowed`);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  if (isAllowed(allow, url.hostname, port) || !isIpLiteral(url.hostname)) return;
  const reason = blockedReason(url.hostname);
  if (reason) throw new OutboundBlockedError(url.host, reason, url.hostname.replace(/^\[|\]$/g, ''));
}

function parseUrl(raw: string, base?: URL): URL {
  try {
    return new URL(raw, base);
  } catch {
    throw new OutboundError(`not a valid URL: ${raw.slice(0, 200)}`, 'BAD_URL');
  }
}

/** What a failure to get (or read) a response becomes: the guard's refusal, a timeout, a size cap or a network error. */
function toError(err: unknown, signal: AbortSignal, timeoutMs: number): Error {
  if (err instanceof OutboundError) return err;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof OutboundError) return cause;
  if (signal.aborted) return new OutboundTimeoutError(timeoutMs);
  const e = err as { code?: string; message?: string };
  if (e.code === 'ETIMEDOUT') return new OutboundTimeoutError(timeoutMs);
  return new OutboundNetworkError(e.message ?? 'connection failed', e.code ?? 'NETWORK');
}

function plainHeaders(raw: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function toResponse(status: number, headers: Record<string, string>, body: Buffer, url: URL): OutboundResponse {
  const text = body.toString('utf8');
  let data: unknown = text;
  if (/\bjson\b/i.test(headers['content-type'] ?? '')) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  return { status, headers, body, text, data, url: url.href };
}

/** The request for the next hop: credentials never cross origins; 303 (and 301/302 after POST) become a GET. */
function nextHop(status: number, from: URL, to: URL, method: string, headers: Record<string, string>, body: unknown) {
  const crossOrigin = from.origin !== to.origin;
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  const kept = Object.entries(headers).filter(([k]) => {
    const name = k.toLowerCase();
    if (crossOrigin && CREDENTIAL_HEADERS.has(name)) return false;
    return !(toGet && (name === 'content-type' || name === 'content-length'));
  });
  return { method: toGet ? 'GET' : method, headers: Object.fromEntries(kept), body: toGet ? undefined : body };
}

/**
 * An HTTP client for addresses outside the product: every connection and every redirect hop goes through the
 * address guard, and every call has a time limit (redirects included) and a response size cap.
 */
export function createOutboundClient(opts: OutboundClientOptions = {}): OutboundClient {
  const allow =
    typeof opts.allowHosts === 'string' || opts.allowHosts === undefined
      ? parseAllowHosts(opts.allowHosts)
      : opts.allowHosts;
  const agents = createGuardedAgents(allow);
  const userAgent = opts.userAgent ?? 'agent-platform/0.1';

  /** The call, redirects followed (each hop checked); the last response with its body still to read. */
  async function send(
    req: OutboundRequest,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<{ res: RawResponse; url: URL }> {
    const maxRedirects = req.maxRedirects ?? opts.maxRedirects ?? 5;
    let url = parseUrl(req.url);
    let hop = {
      method: (req.method ?? 'GET').toUpperCase(),
      headers: { 'user-agent': userAgent, ...req.headers } as Record<string, string>,
      body: req.body,
    };
    for (let redirects = 0; ; redirects++) {
      checkUrl(url, allow);
      const res = await exchange({ url, ...hop, signal, agents }).catch((err: unknown) => {
        throw toError(err, signal, timeoutMs);
      });
      const location = res.headers.location;
      if (!REDIRECTS.has(res.status) || !location) return { res, url };
      res.body.destroy();
      if (redirects >= maxRedirects)
        throw new OutboundNetworkError(`more than ${maxRedirects} redirects`, 'TOO_MANY_REDIRECTS');
      const next = parseUrl(location, url);
      hop = nextHop(res.status, url, next, hop.method, hop.headers, hop.body);
      url = next;
    }
  }

  /** The call's time limit and response size cap: the request's own, else the client's, else the defaults. */
  const limitsOf = (req: OutboundRequest) => ({
    timeoutMs: req.timeoutMs ?? opts.timeoutMs ?? 30_000,
    cap: req.maxResponseBytes ?? opts.maxResponseBytes ?? 5 * 1024 * 1024,
  });

  async function request(req: OutboundRequest): Promise<OutboundResponse> {
    const { timeoutMs, cap } = limitsOf(req);
    // The call's deadline: a controller and a timer cleared once the body is in (AbortSignal.timeout leaves a timer
    // and a weak reference behind for every call, which the garbage collector has to clear).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new OutboundTimeoutError(timeoutMs)), timeoutMs);
    try {
      const { res, url } = await send(req, deadline.signal, timeoutMs);
      const body = await readAll(res.body, cap).catch((err: unknown) => {
        throw toError(err, deadline.signal, timeoutMs);
      });
      return toResponse(res.status, plainHeaders(res.headers), body, url);
    } finally {
      clearTimeout(timer);
    }
  }

  async function stream(req: OutboundStreamRequest): Promise<OutboundStreamResponse> {
    const { timeoutMs, cap } = limitsOf(req);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
    const { res, url } = await send(req, signal, timeoutMs).catch((err: unknown) => {
      throw req.signal?.aborted && !timeout.aborted
        ? new OutboundNetworkError('aborted by the caller', 'ABORTED')
        : err;
    });
    return streamResponse(res.status, plainHeaders(res.headers), url.href, res.body, {
      signal,
      timeout,
      timeoutMs,
      cap,
    });
  }

  return {
    request,
    stream,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
