import type { CrawlError } from '../crawl/crawl.types';

/** The website training request after validation (its defaults applied: `TrainRequest` in the OpenAPI document). */
export type { TrainRequest as TrainInput } from './graph.schemas.types';

/** What a training run reports as it goes. */
export interface TrainProgress {
  onPage?(pagesTrained: number, url: string): Promise<void> | void;
  onError?(error: CrawlError): void;
  /** Fires to stop the crawl early (a consumer shutting down); pages trained so far stay trained. */
  signal?: AbortSignal;
}

/** How a training run ended (the synchronous route answers `TrainResult`, the task keeps the errors). */
export interface TrainOutcome {
  pages_trained: number;
  errors: CrawlError[];
  aborted: boolean;
}
