import type { OutboundClient, OutboundResponse } from '@platform/outbound';

/** Per-call limits of the fetch, on top of the outbound client's defaults. */
export interface OutboundFetchOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxRedirects?: number;
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

interface RequestInitLike {
  method?: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: unknown;
}

/**
 * The request openapi-fetch builds for each call (its `Request` option), holding what the outbound client sends and
 * nothing more: URL, method, headers and the serialized body. A WHATWG Request would wrap the body in a stream that
 * the fetch below reads back at once; for the worker's call per run that cost more than the call's own bytes.
 */
export class OutboundFetchRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: unknown;
  constructor(input: string | URL, init: RequestInitLike = {}) {
    this.url = String(input);
    this.method = (init.method ?? 'GET').toUpperCase();
    this.headers = new Headers(init.headers);
    this.body = init.body ?? undefined;
  }
}

/** The body's bytes, and its content type when the body names one (a form's multipart boundary). */
async function bodyOf(body: unknown): Promise<{ bytes?: Buffer; type?: string | null }> {
  if (body === undefined || body === null) return {};
  if (typeof body === 'string') return { bytes: Buffer.from(body) };
  const wrapped = new Response(body as ConstructorParameters<typeof Response>[0]);
  return { bytes: Buffer.from(await wrapped.arrayBuffer()), type: wrapped.headers.get('content-type') };
}

/** Response headers as a read-only Headers (what openapi-fetch and its callers read: get, has, entries). */
function headersOf(plain: Record<string, string>): Headers {
  const lower = new Map(Object.entries(plain).map(([k, v]) => [k.toLowerCase(), v]));
  const view = {
    get: (name: string) => lower.get(name.toLowerCase()) ?? null,
    has: (name: string) => lower.has(name.toLowerCase()),
    entries: () => lower.entries(),
    keys: () => lower.keys(),
    values: () => lower.values(),
    forEach: (fn: (value: string, key: string, parent: Headers) => void) =>
      lower.forEach((v, k) => fn(v, k, view as unknown as Headers)),
    getSetCookie: () => (lower.has('set-cookie') ? [lower.get('set-cookie')!] : []),
    [Symbol.iterator]: () => lower.entries(),
  };
  return view as unknown as Headers;
}

/**
 * The outbound client's answer as the Response openapi-fetch reads: status, headers, and the body as text or as the
 * JSON the client has already parsed. Anything else a caller asks of it (a stream, a blob) comes from a real Response.
 */
function responseOf(res: OutboundResponse): Response {
  const empty = NO_BODY.has(res.status);
  let real: Response | undefined;
  const toReal = () =>
    (real ??= new Response(empty ? null : new Uint8Array(res.body), { status: res.status, headers: res.headers }));
  const light = {
    status: res.status,
    ok: res.status >= 200 && res.status < 300,
    statusText: '',
    redirected: false,
    type: 'basic',
    url: res.url,
    headers: headersOf(res.headers),
    bodyUsed: false,
    text: () => Promise.resolve(empty ? '' : res.text),
    json: () => Promise.resolve(typeof res.data === 'string' ? (JSON.parse(res.text) as unknown) : res.data),
    arrayBuffer: () => toReal().arrayBuffer(),
    blob: () => toReal().blob(),
    formData: () => toReal().formData(),
    clone: () => toReal().clone(),
    get body() {
      return toReal().body;
    },
  };
  return light as unknown as Response;
}

/**
 * A `fetch` for openapi-fetch that sends through `outbound`: the address guard, the time limit and the size cap of
 * @platform/outbound apply to every call. A call that gets no answer rejects with the OutboundError (its `code` says
 * why: ECONNREFUSED, TIMEOUT, BLOCKED, …).
 */
export function outboundFetch(
  outbound: OutboundClient,
  opts: OutboundFetchOptions = {},
): (input: Request | OutboundFetchRequest) => Promise<Response> {
  return async (input) => {
    const { bytes, type } = await bodyOf(input.body);
    const headers = Object.fromEntries(input.headers.entries());
    if (type) headers['content-type'] = type;
    const res = await outbound.request({
      url: input.url,
      method: input.method,
      headers,
      body: bytes,
      timeoutMs: opts.timeoutMs,
      maxResponseBytes: opts.maxResponseBytes,
      maxRedirects: opts.maxRedirects,
    });
    return responseOf(res);
  };
}
