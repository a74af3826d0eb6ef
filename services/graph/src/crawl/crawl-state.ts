import type { CrawlError, CrawlOptions } from './crawl.types';
import { canonicalUrl, sameSite } from './url';

/** A request's link level: 0 for a start URL. */
export interface Depth {
  depth: number;
}

/**
 * What one crawl keeps track of: its start URLs and their site, the URLs seen and queued, the fetches taken under
 * the `maxPages` cap, the pages given to training and its errors (`onError` is told of each).
 */
export function createCrawlState(opts: CrawlOptions, onError?: (e: CrawlError) => void) {
  const starts = opts.urls.map((u) => canonicalUrl(u)).filter((u): u is string => u !== null);
  const isStart = new Set(starts);
  const onSite = (url: string) => starts.some((s) => sameSite(url, s));
  const errors: CrawlError[] = [];
  const fail = (url: string, reason: string) => {
    const e = { url, reason: reason.slice(0, 300) };
    // A start URL's error is always kept: the training's answer names every start URL that gave no page.
    if (errors.length < 100 || isStart.has(url)) errors.push(e);
    onError?.(e);
  };
  const seen = new Set<string>();
  const enqueueCap = opts.maxPages * 4 + 10;
  let enqueued = 0;
  /** URLs holding one of the `maxPages` fetches (taken synchronously, so concurrent handlers cannot overrun it). */
  const fetches = new Set<string>();
  const capReached = (url: string) => !fetches.has(url) && fetches.size >= opts.maxPages;
  /** A URL the cap leaves unfetched: silent, except for a start URL, whose answer must say why it gave nothing. */
  const skip = (url: string) => {
    if (isStart.has(url)) fail(url, `not fetched: max_crawl_pages (${opts.maxPages}) reached`);
  };
  /** Takes a fetch for `url` (it keeps the one it holds), or skips it when all are taken. */
  const takeFetch = (url: string): boolean => {
    if (capReached(url)) {
      skip(url);
      return false;
    }
    fetches.add(url);
    return true;
  };
  /** The links of a page not seen yet, on the site and within the queue's cap, marked seen, at `depth`. */
  const newLinks = (hrefs: string[], base: string, depth: number) => {
    const next = [];
    for (const href of hrefs) {
      const link = canonicalUrl(href, base);
      if (!link || seen.has(link) || !onSite(link) || enqueued >= enqueueCap) continue;
      seen.add(link);
      enqueued++;
      next.push({ url: link, uniqueKey: link, userData: { depth } satisfies Depth });
    }
    return next;
  };
  /** The start URLs' requests, marked seen and counted in the queue. */
  const startRequests = () => {
    for (const s of starts) {
      seen.add(s);
      enqueued++;
    }
    return starts.map((url) => ({ url, uniqueKey: url, userData: { depth: 0 } satisfies Depth }));
  };
  return {
    onSite,
    errors,
    fail,
    seen,
    fetches,
    capReached,
    skip,
    takeFetch,
    newLinks,
    startRequests,
    /** Pages given to training (one is given back when training it failed). */
    pages: 0,
    /** The last error of rendering or training a fetched page (browser, storage): the service's, not the site's. */
    internalError: null as Error | null,
  };
}

export type CrawlState = ReturnType<typeof createCrawlState>;
