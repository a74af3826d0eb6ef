import { Router, type Express } from 'express';

import { withOnBehalfOf, type ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, mountRoutes, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { localChangeBusOf, type ChangeBus } from '@platform/queue';
import {
  createCredentialClient,
  createLiveIndexes,
  type AgentServiceTarget,
  type LiveIndexStats,
} from '@platform/retrieval';

import { createBrowserRenderer, type BrowserRenderer } from './crawl/browser-renderer';
import type { CrawlLimits } from './crawl/crawl.types';
import { createCrawler } from './crawl/crawler';
import { createGraphRepository } from './graph/graph.repository';
import { graphRoutes } from './graph/graph.routes';
import { createGraphService, type GraphService } from './graph/graph.service';
import { openapi } from './openapi';
import { createLocalExtractor } from './pipeline/entities';
import { createModels } from './providers/models';
import { createRagClient, type RagServiceTarget } from './rag/rag.client';
import { createTaskRepository } from './tasks/task.repository';
import { taskRoutes } from './tasks/task.routes';
import { createTaskService, type TaskService } from './tasks/task.service';

export interface AppDeps {
  logger: Logger;
  /** The graph service's database. */
  db: Connection;
  auth: ApiKeyAuth;
  /** The crawler's client: the operator's allow-list only, so a crawl can never reach our own services. */
  crawlOutbound: OutboundClient;
  /** The client for our own services (the rag and agent services' hosts allowed). */
  serviceOutbound: OutboundClient;
  rag: RagServiceTarget;
  /** The agent service, which opens the RAG configuration's credentials; unset: the local NLP library and BM25 only. */
  agent?: AgentServiceTarget | null;
  /** The client for LLM and embedding providers (the operator's allow-list); default the crawler's. */
  providerOutbound?: OutboundClient;
  /** Time limit of one provider call (default 30 s). */
  providerTimeoutMs?: number;
  /** Secret of the internal on-behalf-of path (the rag service asks retrievals); unset disables that path. */
  internalSecret?: string | null;
  limits: CrawlLimits;
  /** Puts an asynchronous training on the crawl queue. */
  enqueue(taskId: string): Promise<void>;
  /** Retrieval indexes kept in memory (default 32). */
  indexCacheGraphs?: number;
  /** Announces index changes to every replica (Redis pub/sub in main.ts); default: this process only. */
  changes?: ChangeBus;
  /** Counts what the search indexes did (loads, builds, snapshots); tests read it. */
  indexStats?: LiveIndexStats;
  readiness: Record<string, ReadinessCheck>;
  clock?: () => Date;
  jsonLimit?: string;
}

/** The graph service's parts: the HTTP app uses them, and so does the crawl consumer main.ts starts. */
export interface GraphParts {
  graph: GraphService;
  tasks: TaskService;
  /** Closes the browser, if a playwright crawl opened it. */
  close(): Promise<void>;
}

/** Builds repositories and services. Pure: every connection arrives in `deps`; the browser starts on first use. */
export function createGraphParts(deps: AppDeps): GraphParts {
  const clock = deps.clock ?? (() => new Date());
  const repo = createGraphRepository(deps.db);
  const changes = deps.changes ?? localChangeBusOf(deps);
  const indexes = createLiveIndexes({
    store: repo.indexStore,
    maxIndexes: deps.indexCacheGraphs ?? 32,
    stats: deps.indexStats,
    onError: (err, ragId) => deps.logger.warn('search index update failed', { rag_id: ragId, err: err.message }),
  });
  changes.onChange((ragId) => indexes.changed(ragId));
  let renderer: BrowserRenderer | null = null;
  const browser = () =>
    (renderer ??= createBrowserRenderer({
      outbound: deps.crawlOutbound,
      executablePath: deps.limits.chromiumPath,
      timeoutMs: deps.limits.pageTimeoutMs,
      maxBytes: deps.limits.pageMaxBytes,
      userAgent: deps.limits.userAgent,
    }));
  const graph = createGraphService({
    repo,
    rag: createRagClient({ outbound: deps.serviceOutbound, target: deps.rag, logger: deps.logger }),
    crawl: createCrawler({ outbound: deps.crawlOutbound, limits: deps.limits, browser }),
    models: createModels({
      credentials: createCredentialClient({
        outbound: deps.serviceOutbound,
        target: deps.agent ?? null,
        logger: deps.logger,
      }),
      outbound: deps.providerOutbound ?? deps.crawlOutbound,
      local: createLocalExtractor(),
      timeoutMs: deps.providerTimeoutMs ?? 30_000,
      logger: deps.logger,
    }),
    indexes,
    changes,
    clock,
    logger: deps.logger,
  });
  const tasks = createTaskService({
    repo: createTaskRepository(deps.db),
    graph,
    enqueue: (id) => deps.enqueue(id),
    clock,
    logger: deps.logger,
  });
  return {
    graph,
    tasks,
    async close() {
      await renderer?.close();
    },
  };
}

/** Assembles the graph service's HTTP app. Pure. */
export function createApp(deps: AppDeps, parts: GraphParts = createGraphParts(deps)): Express {
  const routes = Router();
  routes.use(mountRoutes(graphRoutes, { graph: parts.graph, queue: parts.tasks }));
  routes.use(mountRoutes(taskRoutes, parts.tasks));
  const auth = withOnBehalfOf({ apiKey: deps.auth.middleware, secret: deps.internalSecret });
  return createHttpApp({
    service: 'graph',
    logger: deps.logger,
    routes,
    protect: { paths: ['/v4'], middleware: auth },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
  }).app;
}
