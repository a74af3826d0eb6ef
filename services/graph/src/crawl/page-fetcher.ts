import { OutboundBlockedError, OutboundTooLargeError, type OutboundClient } from '@platform/outbound';

import { guardReason } from './refusals';

/** A page's HTML as fetched, or why it was not. */
export type FetchResult = { ok: true; url: string; html: string } | { ok: false; reason: string };

export interface PageFetcherDeps {
  outbound: OutboundClient;
  pageMaxBytes: number;
  timeoutMs: number;
  userAgent: string;
  /** Asked of the URL that answered after redirects: a page that ended on another site or a disallowed path is dropped. */
  mayKeep(url: string): Promise<string | null>;
}

const MAX_REDIRECTS = 5;

/**
 * Fetches one HTML page through the guarded client, which checks the address of the first request and of every
 * redirect hop before connecting (a hop to a private or metadata address is never fetched), caps the body and
 * limits the time. The URL that finally answered must still be on the site and allowed by robots.txt.
 */
export function createPageFetcher(deps: PageFetcherDeps) {
  return async function fetchPage(url: string): Promise<FetchResult> {
    let res;
    try {
      res = await deps.outbound.request({
        url,
        headers: { 'user-agent': deps.userAgent, accept: 'text/html,application/xhtml+xml' },
        timeoutMs: deps.timeoutMs,
        maxResponseBytes: deps.pageMaxBytes,
        maxRedirects: MAX_REDIRECTS,
      });
    } catch (err) {
      if (err instanceof OutboundTooLargeError)
        return { ok: false, reason: `page larger than ${deps.pageMaxBytes} bytes` };
      if (err instanceof OutboundBlockedError) return { ok: false, reason: guardReason(err, url) };
      return { ok: false, reason: (err as Error).message };
    }
    if (res.url !== url) {
      const refusal = await deps.mayKeep(res.url);
      if (refusal) return { ok: false, reason: `redirected to ${res.url}: ${refusal}` };
    }
    if (res.status !== 200) return { ok: false, reason: `HTTP ${res.status}` };
    const type = res.headers['content-type'] ?? '';
    if (type && !/text\/html|application\/xhtml\+xml/i.test(type))
      return { ok: false, reason: `not HTML (${type.slice(0, 100)})` };
    return { ok: true, url: res.url, html: res.text };
  };
}

export type PageFetcher = ReturnType<typeof createPageFetcher>;
