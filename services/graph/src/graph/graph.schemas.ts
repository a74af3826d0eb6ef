import Joi from 'joi';

/** Limits of the website training request (contract §6), named for the README and the tests. */
export const TRAIN_LIMITS = {
  maxUrls: 20,
  maxCrawlPages: 1000,
  maxCrawlDepth: 10,
  maxWaitSecs: 60,
  minChunkSize: 100,
  maxChunkSize: 8000,
} as const;

const httpUrl = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] });

/** The website training request (spec fields with contract §6 defaults; `chunk_size`/`chunk_overlap` ours). */
export const trainBody = Joi.object({
  urls: Joi.array().items(httpUrl.required()).min(1).max(TRAIN_LIMITS.maxUrls).required(),
  source: Joi.string().trim().max(100).default('website'),
  max_crawl_pages: Joi.number().integer().min(1).max(TRAIN_LIMITS.maxCrawlPages).default(1),
  max_crawl_depth: Joi.number().integer().min(0).max(TRAIN_LIMITS.maxCrawlDepth).default(0),
  dynamic_content_wait_secs: Joi.number().integer().min(0).max(TRAIN_LIMITS.maxWaitSecs).default(5),
  actor: Joi.string().trim().max(200).default('apify/website-content-crawler'),
  crawler_type: Joi.string().valid('cheerio', 'playwright:chromium').default('cheerio'),
  chunk_size: Joi.number().integer().min(TRAIN_LIMITS.minChunkSize).max(TRAIN_LIMITS.maxChunkSize).default(1000),
  chunk_overlap: Joi.number()
    .integer()
    .min(0)
    .max(Joi.ref('chunk_size', { adjust: (v: number) => Math.floor(v / 2) }))
    .default(200),
});

const ragId = Joi.string().trim().min(1).max(100).required();

export const trainQuery = Joi.object({ rag_id: ragId, async: Joi.boolean().default(false) });

export const graphQuery = Joi.object({ rag_id: ragId, limit: Joi.number().integer().min(1).max(1000).default(100) });

export const retrieveQuery = Joi.object({
  rag_id: ragId,
  query: Joi.string().trim().min(1).max(2000).required(),
  top_k: Joi.number().integer().min(1).max(50).default(5),
});
