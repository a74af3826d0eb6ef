import type { OutboundClient } from '@platform/outbound';

/** Per-call limits of the fetch, on top of the outbound client's defaults. */
export interface OutboundFetchOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxRedirects?: number;
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for openapi-fetch that sends through `outbound`: the address guard, the time limit and the size cap of
 * @platform/outbound apply to every call. A call that gets no answer rejects with the OutboundError (its `code` says
 * why: ECONNREFUSED, TIMEOUT, BLOCKED, …).
 */
export function outboundFetch(
  outbound: OutboundClient,
  opts: OutboundFetchOptions = {},
): (input: Request) => Promise<Response> {
  return async (input) => {
    const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
    const res = await outbound.request({
      url: input.url,
      method: input.method,
      headers: Object.fromEntries(input.headers.entries()),
      body,
      timeoutMs: opts.timeoutMs,
      maxResponseBytes: opts.maxResponseBytes,
      maxRedirects: opts.maxRedirects,
    });
    return new Response(NO_BODY.has(res.status) ? null : new Uint8Array(res.body), {
      status: res.status,
      headers: res.headers,
    });
  };
}
