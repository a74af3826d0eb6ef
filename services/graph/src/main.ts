import './tracing';

import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { createOutboundClient } from '@platform/outbound';
import { addWithin, createQueue, disconnectRedis, openRedisChangeBus, workerConnection } from '@platform/queue';
import { openInfra, runService, startMain } from '@platform/service';

import { createApp, createGraphParts } from './app';
import { configSchema, type GraphServiceConfig } from './config';
import { CRAWL_QUEUE, startCrawlConsumer } from './tasks/crawl-consumer.unit';
import type { CrawlJob } from './tasks/task.types';

const ENQUEUE_TIMEOUT_MS = 3_000;

async function main(): Promise<void> {
  const config = loadConfigOrExit<GraphServiceConfig>(configSchema, process.env, 'graph');
  const logger = createLogger({ service: 'graph', level: config.LOG_LEVEL });
  const infra = await openInfra({ name: 'graph', config, logger, redis: 'producer' });
  const queue = createQueue<CrawlJob>(CRAWL_QUEUE, infra.redis!, {}, config.QUEUE_PREFIX);
  // The crawler and the LLM/embedding providers reach the operator's allow-list only; our own rag and agent services
  // (usually private) have a client of their own.
  const crawlOutbound = createOutboundClient({
    allowHosts: config.OUTBOUND_ALLOW_HOSTS,
    userAgent: config.CRAWL_USER_AGENT,
  });
  const providerOutbound = createOutboundClient({ allowHosts: config.OUTBOUND_ALLOW_HOSTS });
  const serviceOutbound = createOutboundClient({
    allowHosts: [new URL(config.RAG_URL).host, new URL(config.AGENT_URL).host].join(','),
  });
  // Training on one replica reaches every replica's search index at once through Redis pub/sub (and, should a
  // message be lost, on its next search, which reads the graph's head first).
  const changes = openRedisChangeBus({
    url: config.REDIS_URL,
    publisher: infra.redis!,
    channel: `${config.QUEUE_PREFIX}:graph-index-changed`,
    onError: (err) => logger.warn('graph index change not announced', { err: err.message }),
  });
  const deps = {
    logger,
    changes,
    db: infra.db,
    auth: infra.auth,
    crawlOutbound,
    serviceOutbound,
    providerOutbound,
    providerTimeoutMs: config.PROVIDER_TIMEOUT_MS,
    agent: {
      baseUrl: config.AGENT_URL,
      secret: config.INTERNAL_SERVICE_SECRET || null,
      timeoutMs: config.AGENT_TIMEOUT_MS,
    },
    rag: { baseUrl: config.RAG_URL, secret: config.INTERNAL_SERVICE_SECRET || null, timeoutMs: config.RAG_TIMEOUT_MS },
    internalSecret: config.INTERNAL_SERVICE_SECRET || null,
    limits: {
      pageMaxBytes: config.CRAWL_PAGE_MAX_BYTES,
      pageTimeoutMs: config.CRAWL_PAGE_TIMEOUT_MS,
      concurrency: config.CRAWL_CONCURRENCY,
      chromiumPath: config.CHROMIUM_PATH,
      userAgent: config.CRAWL_USER_AGENT,
    },
    enqueue: async (taskId: string) => {
      await addWithin(queue, ENQUEUE_TIMEOUT_MS, 'crawl', { task_id: taskId }, { jobId: taskId });
    },
    indexCacheGraphs: config.INDEX_CACHE_GRAPHS,
    readiness: infra.readiness,
    jsonLimit: config.JSON_BODY_LIMIT,
  };
  const parts = createGraphParts(deps);
  const app = createApp(deps, parts);
  const consumerConnection = workerConnection(config.REDIS_URL);
  await runService({
    name: 'graph',
    logger,
    app,
    port: config.PORT,
    infra,
    graceMs: config.SHUTDOWN_GRACE_MS,
    units: [
      () => ({
        name: 'outbound clients',
        stop: () => (crawlOutbound.close(), providerOutbound.close(), serviceOutbound.close()),
      }),
      () => ({ name: 'crawl queue', stop: () => queue.close() }),
      () => ({ name: 'index changes', stop: () => changes.close() }),
      () => ({ name: 'browser', stop: () => parts.close() }),
      () => ({ name: 'consumer connection', stop: () => disconnectRedis(consumerConnection) }),
      () =>
        startCrawlConsumer({
          tasks: parts.tasks,
          connection: consumerConnection,
          logger,
          prefix: config.QUEUE_PREFIX,
          concurrency: config.CRAWL_CONSUMER_CONCURRENCY,
          lockDurationMs: config.CRAWL_LOCK_MS,
          stalledIntervalMs: Math.max(1000, Math.floor(config.CRAWL_LOCK_MS / 2)),
        }),
    ],
  });
}

startMain('graph', main);
