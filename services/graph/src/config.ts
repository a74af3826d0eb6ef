import { checkedStringEnv, commonEnv, Joi, redisUrlSchema, type CommonConfig } from '@platform/config';
import { parseAllowHosts } from '@platform/outbound';

/** Every environment variable the graph service reads. */
export const configSchema = Joi.object<GraphServiceConfig>({
  PORT: Joi.number().port().default(3006).description('HTTP port.'),
  MONGODB_DB: Joi.string()
    .default('graph')
    .description("The graph service's own database (pages, chunks, entities, relations, tasks)."),
  REDIS_URL: redisUrlSchema()
    .default('redis://127.0.0.1:6379')
    .description(
      'Redis of the crawl queue (?async=true trainings); checked by /readyz. One node (redis://host:port), a Cluster (redis+cluster://host1:port1,host2:port2,...: queue keys hash-tagged) or Sentinel (redis+sentinel://host1:26379,host2:26379/<master name>); rediss… for TLS.',
    ),
  QUEUE_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9:_-]{1,64}$/)
    .default('bull')
    .description('Redis key prefix of the crawl queue.'),
  RAG_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3003')
    .description(
      "Base URL of the rag service, asked (on behalf of the caller) whether a rag_id is the caller's; its host is always allowed.",
    ),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .allow('')
    .min(32)
    .description(
      'Shared secret (32+ chars) with which the graph service asks the rag and agent services on behalf of the caller, and the rag service asks it. Unset: every graph request answers 503.',
    ),
  RAG_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(30000)
    .default(5000)
    .description('Time limit of one call to the rag service.'),
  AGENT_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3002')
    .description(
      "Base URL of the agent service, which opens (on behalf of the owner) the RAG configuration's LLM and embedding credentials; its host is always allowed.",
    ),
  AGENT_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(30000)
    .default(5000)
    .description('Time limit of one call to the agent service.'),
  PROVIDER_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(300000)
    .default(30000)
    .description(
      'Time limit of one LLM or embeddings call (a chunk whose call fails or times out falls back to the local library / BM25 only).',
    ),
  OUTBOUND_ALLOW_HOSTS: checkedStringEnv(
    parseAllowHosts,
    'Comma-separated hosts or host:port pairs the crawler may reach although private (an intranet site). Everything else private, loopback, link-local or metadata is refused on every request and redirect.',
  ),
  CHROMIUM_PATH: Joi.string()
    .default('/usr/bin/chromium')
    .description(
      'Chromium executable for crawler_type "playwright:chromium" (Debian package `chromium`, scripts/install-graph.sh).',
    ),
  CRAWL_PAGE_MAX_BYTES: Joi.number()
    .integer()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(2 * 1024 * 1024)
    .description('Largest page (or browser sub-resource) read; a larger page is skipped and reported.'),
  CRAWL_PAGE_TIMEOUT_MS: Joi.number()
    .integer()
    .min(500)
    .max(120000)
    .default(15000)
    .description('Time limit of one page fetch (redirects included) or browser navigation.'),
  CRAWL_CONCURRENCY: Joi.number().integer().min(1).max(32).default(4).description('Pages fetched at once per crawl.'),
  CRAWL_CONSUMER_CONCURRENCY: Joi.number()
    .integer()
    .min(1)
    .max(16)
    .default(2)
    .description('Asynchronous crawls run at once by this process.'),
  CRAWL_LOCK_MS: Joi.number()
    .integer()
    .min(1000)
    .default(60000)
    .description('Lock of a running crawl job; a consumer that died loses its job to another after it.'),
  CRAWL_USER_AGENT: Joi.string()
    .max(200)
    .default('agent-platform-graph/0.1 (+robots.txt obeyed)')
    .description('User-Agent of the crawler (also the robots.txt agent name).'),
  INDEX_CACHE_GRAPHS: Joi.number()
    .integer()
    .min(1)
    .max(1000)
    .default(32)
    .description('Retrieval indexes (one per rag_id) kept in memory; others are rebuilt from the database on use.'),
  ...commonEnv,
});

export interface GraphServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  RAG_URL: string;
  INTERNAL_SERVICE_SECRET?: string;
  RAG_TIMEOUT_MS: number;
  AGENT_URL: string;
  AGENT_TIMEOUT_MS: number;
  PROVIDER_TIMEOUT_MS: number;
  OUTBOUND_ALLOW_HOSTS: string;
  CHROMIUM_PATH: string;
  CRAWL_PAGE_MAX_BYTES: number;
  CRAWL_PAGE_TIMEOUT_MS: number;
  CRAWL_CONCURRENCY: number;
  CRAWL_CONSUMER_CONCURRENCY: number;
  CRAWL_LOCK_MS: number;
  CRAWL_USER_AGENT: string;
  INDEX_CACHE_GRAPHS: number;
}
