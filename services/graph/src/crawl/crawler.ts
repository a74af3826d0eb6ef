import { BasicCrawler, Configuration, log, type BasicCrawlingContext } from '@crawlee/basic';

import { ServiceUnavailableError } from '@platform/errors';
import type { OutboundClient } from '@platform/outbound';

import { extractContent } from '../pipeline/main-text';
import type { BrowserRenderer } from './browser-renderer';
import { createCrawlState, type CrawlState, type Depth } from './crawl-state';
import type { CrawledPage, CrawlError, CrawlLimits, CrawlOptions, CrawlSummary } from './crawl.types';
import { createPageFetcher, type PageFetcher } from './page-fetcher';
import { startFailures, startUrlsRefused } from './refusals';
import { createRobotsRules } from './robots';
import { canonicalUrl } from './url';

// Crawlee's own log goes nowhere: the service logs what matters through its logger.
log.setLevel(log.LEVELS.OFF);

export interface CrawlerDeps {
  outbound: OutboundClient;
  limits: CrawlLimits;
  /** Opened on the first playwright crawl; shared by later ones. */
  browser: () => BrowserRenderer;
}

/** Called for every page as soon as it is read; the crawl waits for it (so training keeps pace with crawling). */
export type PageSink = (page: CrawledPage) => Promise<void>;

export interface CrawlHooks {
  onPage: PageSink;
  onError?: (e: CrawlError) => void;
  /** Stops the crawl: pages in flight finish, nothing new starts. */
  signal?: AbortSignal;
}

/** What a crawl's request handler uses: its options, hooks and state, the URL check and the page fetcher. */
interface HandlerDeps {
  browser: () => BrowserRenderer;
  opts: CrawlOptions;
  hooks: CrawlHooks;
  state: CrawlState;
  /** Why a URL may not be fetched, or null. */
  refusal: (url: string) => Promise<string | null>;
  fetchPage: PageFetcher;
}

/** Crawlee's request handler: fetch (and render), extract, train, then queue the page's new links. */
function createRequestHandler({ browser, opts, hooks, state: s, refusal, fetchPage }: HandlerDeps) {
  const { onPage, signal } = hooks;
  const { capReached, skip, fail, takeFetch, onSite, seen, newLinks } = s;
  return async ({ request, addRequests }: BasicCrawlingContext) => {
    if (signal?.aborted) return;
    if (capReached(request.url)) return skip(request.url);
    const { depth } = request.userData as Depth;
    const why = await refusal(request.url);
    if (why) return fail(request.url, why);
    if (!takeFetch(request.url)) return;
    const got = await fetchPage(request.url);
    if (!got.ok) return fail(request.url, got.reason);
    let html = got.html;
    if (opts.crawlerType === 'playwright:chromium')
      html = await browser()
        .render(got.url, got.html, opts.dynamicWaitSecs)
        .catch((err: Error) => {
          // The browser is ours (not installed, crashed): the service is unavailable, the site is not at fault.
          s.internalError = new ServiceUnavailableError(err);
          throw err;
        });
    const content = extractContent(html);
    const finalUrl = canonicalUrl(got.url) ?? request.url;
    const declared = content.canonical ? canonicalUrl(content.canonical, finalUrl) : null;
    const url = declared && onSite(declared) ? declared : finalUrl;
    if (url !== request.url && seen.has(url)) return;
    seen.add(url);
    if (s.pages >= opts.maxPages) return;
    s.pages++;
    try {
      await onPage({ url, title: content.title, text: content.text, depth });
    } catch (err) {
      // Not trained: give its place back, so the retry crawlee makes can take it (with the fetch it holds).
      s.pages--;
      if (url !== request.url) seen.delete(url);
      s.internalError = err as Error;
      throw err;
    }
    if (depth >= opts.maxDepth) return;
    const next = newLinks(content.links, got.url, depth + 1);
    if (next.length > 0) await addRequests(next);
  };
}

/** A crawlee crawler of its own for one crawl, with `handle` for every request and `fail` for those it gives up. */
function newCrawler(
  limits: CrawlLimits,
  opts: CrawlOptions,
  handle: (ctx: BasicCrawlingContext) => Promise<void>,
  fail: (url: string, reason: string) => void,
) {
  return new BasicCrawler(
    {
      requestHandler: handle,
      failedRequestHandler: ({ request }, err) => fail(request.url, err.message),
      // All of CRAWL_CONCURRENCY from the first page: crawlee's pool otherwise starts at one and adds 5% every
      // 10 s, so a crawl of a few minutes ran one page at a time (the bench's crawl reached 1 of 4).
      minConcurrency: limits.concurrency,
      maxConcurrency: limits.concurrency,
      maxRequestRetries: 1,
      requestHandlerTimeoutSecs: Math.ceil((limits.pageTimeoutMs * 3 + opts.dynamicWaitSecs * 1000) / 1000),
      useSessionPool: false,
      retryOnBlocked: false,
      statusMessageLoggingInterval: 3600,
    },
    // A configuration of its own per crawl: in-memory queue, nothing written to disk, nothing shared.
    new Configuration({ persistStorage: false, purgeOnStart: true, systemInfoIntervalMillis: 60_000 }),
  );
}

/**
 * Crawls websites with crawlee's BasicCrawler (its queue, concurrency and retries, in-memory storage only), every
 * request made by our guarded client: same site as the start URLs, robots.txt obeyed, `maxPages` page fetches and
 * `maxDepth` link levels at most, canonical URLs crawled once.
 *
 * The cap bounds what the site sees: a URL takes one of the `maxPages` fetches before its request is made, and keeps
 * it whatever comes back (an error status, not HTML, too big, a page whose canonical URL was already trained); a
 * retry of the same URL uses the fetch it already holds. URLs refused before any request (another site, robots.txt)
 * take none; robots.txt itself is not counted.
 *
 * A crawl that trains no page rejects: with a 422 naming each start URL and why it gave nothing (refused by the
 * outbound guard, robots.txt, a failed fetch, the cap), or with the training's own error when storing failed.
 */
export function createCrawler(deps: CrawlerDeps) {
  const { limits } = deps;
  return async function crawl(opts: CrawlOptions, hooks: CrawlHooks): Promise<CrawlSummary> {
    const { onError, signal } = hooks;
    const robots = createRobotsRules({
      outbound: deps.outbound,
      userAgent: limits.userAgent,
      timeoutMs: limits.pageTimeoutMs,
    });
    const s = createCrawlState(opts, onError);
    /** Why a URL may not be fetched, or null. */
    const refusal = async (url: string): Promise<string | null> => {
      if (!s.onSite(url)) return 'another site';
      return robots.refusal(url);
    };
    const fetchPage = createPageFetcher({
      outbound: deps.outbound,
      pageMaxBytes: limits.pageMaxBytes,
      timeoutMs: limits.pageTimeoutMs,
      userAgent: limits.userAgent,
      mayKeep: refusal,
    });
    const handle = createRequestHandler({ browser: deps.browser, opts, hooks, state: s, refusal, fetchPage });
    const crawler = newCrawler(limits, opts, handle, s.fail);
    const stop = () => void crawler.autoscaledPool?.abort();
    signal?.addEventListener('abort', stop, { once: true });
    await crawler.run(s.startRequests());
    signal?.removeEventListener('abort', stop);
    await crawler.teardown().catch(() => undefined);
    const aborted = signal?.aborted ?? false;
    if (s.pages === 0 && !aborted) {
      // Nothing trained: the caller is told why, never "trained successfully" with 0 pages (contract §6).
      if (s.internalError) throw s.internalError;
      const failed = startFailures(opts.urls, s.errors);
      if (failed.length > 0) throw startUrlsRefused(failed);
    }
    return { pagesCrawled: s.pages, pagesFetched: s.fetches.size, errors: s.errors, aborted };
  };
}

export type Crawl = ReturnType<typeof createCrawler>;
