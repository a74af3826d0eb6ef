import { BasicCrawler, Configuration, log, type BasicCrawlingContext } from '@crawlee/basic';

import type { OutboundClient } from '@platform/outbound';

import { extractContent } from '../pipeline/main-text';
import type { BrowserRenderer } from './browser-renderer';
import type { CrawledPage, CrawlError, CrawlLimits, CrawlOptions, CrawlSummary } from './crawl.types';
import { createPageFetcher } from './page-fetcher';
import { createRobotsRules } from './robots';
import { canonicalUrl, sameSite } from './url';

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

interface Depth {
  depth: number;
}

/**
 * Crawls websites with crawlee's BasicCrawler (its queue, concurrency and retries, in-memory storage only), every
 * request made by our guarded client: same site as the start URLs, robots.txt obeyed, `maxPages` pages and
 * `maxDepth` link levels at most, canonical URLs crawled once.
 */
export function createCrawler(deps: CrawlerDeps) {
  const { limits } = deps;
  return async function crawl(opts: CrawlOptions, hooks: CrawlHooks): Promise<CrawlSummary> {
    const { onPage, onError, signal } = hooks;
    const robots = createRobotsRules({
      outbound: deps.outbound,
      userAgent: limits.userAgent,
      timeoutMs: limits.pageTimeoutMs,
    });
    const starts = opts.urls.map((u) => canonicalUrl(u)).filter((u): u is string => u !== null);
    const onSite = (url: string) => starts.some((s) => sameSite(url, s));
    const errors: CrawlError[] = [];
    const fail = (url: string, reason: string) => {
      const e = { url, reason: reason.slice(0, 300) };
      if (errors.length < 100) errors.push(e);
      onError?.(e);
    };
    /** Why a URL may not be fetched, or null. */
    const refusal = async (url: string): Promise<string | null> => {
      if (!onSite(url)) return 'another site';
      if (!(await robots.allowed(url))) return 'disallowed by robots.txt';
      return null;
    };
    const fetchPage = createPageFetcher({
      outbound: deps.outbound,
      pageMaxBytes: limits.pageMaxBytes,
      timeoutMs: limits.pageTimeoutMs,
      userAgent: limits.userAgent,
      mayKeep: refusal,
    });
    const seen = new Set<string>();
    const enqueueCap = opts.maxPages * 4 + 10;
    let enqueued = 0;
    let pages = 0;

    const handle = async ({ request, addRequests }: BasicCrawlingContext) => {
      if (pages >= opts.maxPages || signal?.aborted) return;
      const { depth } = request.userData as Depth;
      const why = await refusal(request.url);
      if (why) return fail(request.url, why);
      const got = await fetchPage(request.url);
      if (!got.ok) return fail(request.url, got.reason);
      let html = got.html;
      if (opts.crawlerType === 'playwright:chromium')
        html = await deps.browser().render(got.url, got.html, opts.dynamicWaitSecs);
      const content = extractContent(html);
      const finalUrl = canonicalUrl(got.url) ?? request.url;
      const declared = content.canonical ? canonicalUrl(content.canonical, finalUrl) : null;
      const url = declared && onSite(declared) ? declared : finalUrl;
      if (url !== request.url && seen.has(url)) return;
      seen.add(url);
      if (pages >= opts.maxPages) return;
      pages++;
      try {
        await onPage({ url, title: content.title, text: content.text, depth });
      } catch (err) {
        // Not trained: give its place back, so the retry crawlee makes can take it.
        pages--;
        if (url !== request.url) seen.delete(url);
        throw err;
      }
      if (depth >= opts.maxDepth) return;
      const next = [];
      for (const href of content.links) {
        const link = canonicalUrl(href, got.url);
        if (!link || seen.has(link) || !onSite(link) || enqueued >= enqueueCap) continue;
        seen.add(link);
        enqueued++;
        next.push({ url: link, uniqueKey: link, userData: { depth: depth + 1 } satisfies Depth });
      }
      if (next.length > 0) await addRequests(next);
    };

    const crawler = new BasicCrawler(
      {
        requestHandler: handle,
        failedRequestHandler: ({ request }, err) => fail(request.url, err.message),
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
    const stop = () => void crawler.autoscaledPool?.abort();
    signal?.addEventListener('abort', stop, { once: true });
    for (const s of starts) {
      seen.add(s);
      enqueued++;
    }
    await crawler.run(starts.map((url) => ({ url, uniqueKey: url, userData: { depth: 0 } satisfies Depth })));
    signal?.removeEventListener('abort', stop);
    await crawler.teardown().catch(() => undefined);
    return { pagesCrawled: pages, errors, aborted: signal?.aborted ?? false };
  };
}

export type Crawl = ReturnType<typeof createCrawler>;
