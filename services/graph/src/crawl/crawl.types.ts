import type { CrawlError } from './crawl.schemas.types';

/** Why a URL was not crawled or failed (its wire shape: `crawl.schemas.ts`); kept on the task and logged. */
export type { CrawlError };

/** What one crawl is asked to do (the website training request after validation and defaults). */
export interface CrawlOptions {
  urls: string[];
  maxPages: number;
  maxDepth: number;
  crawlerType: 'cheerio' | 'playwright:chromium';
  /** Seconds a browser page is given to render its text (playwright only). */
  dynamicWaitSecs: number;
}

/** One page fetched and parsed. */
export interface CrawledPage {
  /** The canonical URL (after redirects, fragment removed, `<link rel=canonical>` when same-site). */
  url: string;
  title: string;
  /** The main-content text. */
  text: string;
  depth: number;
}

/** The end of a crawl. */
export interface CrawlSummary {
  /** Pages handed to the page sink (trained). */
  pagesCrawled: number;
  /** Page requests made (at most `maxPages`; robots.txt not counted, a retry of the same URL counted once). */
  pagesFetched: number;
  /** The first 100 errors, and every start URL's (`startFailures` in `refusals.ts` reads those). */
  errors: CrawlError[];
  /** True when the crawl was stopped before it ran out of pages. */
  aborted: boolean;
}

/** The limits of every crawl, from configuration. */
export interface CrawlLimits {
  /** Largest page body read (bytes); a larger page is cut off and counted as an error. */
  pageMaxBytes: number;
  /** Time limit of one page fetch (redirects included) or one browser render. */
  pageTimeoutMs: number;
  /** Pages fetched at once. */
  concurrency: number;
  /** The browser executable for `playwright:chromium`. */
  chromiumPath: string;
  userAgent: string;
}
