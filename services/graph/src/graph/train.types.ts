import type { CrawlError } from '../crawl/crawl.types';

/** The website training request after validation (contract §6 defaults applied). */
export interface TrainInput {
  urls: string[];
  source: string;
  max_crawl_pages: number;
  max_crawl_depth: number;
  dynamic_content_wait_secs: number;
  actor: string;
  crawler_type: 'cheerio' | 'playwright:chromium';
  chunk_size: number;
  chunk_overlap: number;
}

/** What a training run reports as it goes. */
export interface TrainProgress {
  onPage?(pagesTrained: number, url: string): Promise<void> | void;
  onError?(error: CrawlError): void;
  /** Fires to stop the crawl early (a consumer shutting down); pages trained so far stay trained. */
  signal?: AbortSignal;
}

export interface TrainResult {
  pages_trained: number;
  errors: CrawlError[];
  aborted: boolean;
}
