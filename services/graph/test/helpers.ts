import type { Express } from 'express';

import { createApiKeyAuth, createApiKeyRepository, type ApiKeyAuth } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { listen, type RunningServer } from '@platform/http';
import type { Logger } from '@platform/logger';
import { createOutboundClient, type OutboundClient } from '@platform/outbound';
import {
  createQueue,
  disconnectRedis,
  workerConnection,
  type ChangeBus,
  type Queue,
  type RedisConnection,
} from '@platform/queue';
import type { LiveIndexStats } from '@platform/retrieval';
import type { Unit } from '@platform/service';
import { captureLogger, createTestDatabases, testInfra, uniqueName, type TestDatabases } from '@platform/testing';

import { createApp as createRagApp } from '../../rag/src/app';
import { createRagConfig } from '../../rag/test/helpers';
import { createApp, createGraphParts, type AppDeps, type GraphParts } from '../src/app';
import { CRAWL_QUEUE, startCrawlConsumer } from '../src/tasks/crawl-consumer.unit';
import type { CrawlJob } from '../src/tasks/task.types';

export const INTERNAL_SECRET = 'graph-test-internal-secret-0123456789abcdef';
export const ALICE = { user_id: 'alice', org_id: 'acme' };
export const BOB = { user_id: 'bob', org_id: 'globex' };

export interface GraphStack {
  app: Express;
  /** What the app was built from (another replica of it shares its database and services). */
  deps: AppDeps;
  /** Every log line of both apps. */
  lines: string[];
  parts: GraphParts;
  graphUrl: string;
  ragApp: Express;
  ragUrl: string;
  dbs: TestDatabases;
  ragDbs: TestDatabases;
  alice: string;
  bob: string;
  queue: Queue<CrawlJob>;
  /** Starts a crawl consumer on the test's queue (as main.ts does); several may be started one after another. */
  startConsumer(opts?: { lockDurationMs?: number }): Unit;
  /** A RAG configuration of the key's owner, created through the real rag service; `over` replaces fields. */
  createRag(key: string, over?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/**
 * The real graph app and the real rag app (which owns RAG configurations), each listening on a loopback port and
 * asking the other on behalf of the caller; one auth database; the crawler allowed to reach `allowHosts` only.
 */
export async function startGraphStack(opts: {
  allowHosts: string;
  pageMaxBytes?: number;
  pageTimeoutMs?: number;
  /** A real agent service both apps ask (credential checks, credential opens); default none reachable. */
  agentUrl?: string;
  /** Index changes announced to other replicas (default: this app only). */
  changes?: ChangeBus;
  indexStats?: LiveIndexStats;
}): Promise<GraphStack> {
  const dbs = await createTestDatabases('graph');
  const ragDbs = await createTestDatabases('graphrag');
  const { logger, lines } = captureLogger('graph');
  const auth = createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 });
  const graphTarget = { baseUrl: '', secret: INTERNAL_SECRET, timeoutMs: 5_000 };
  const serviceClients: OutboundClient[] = [];
  const serviceClient = (host: string) => {
    const c = createOutboundClient({ allowHosts: host });
    serviceClients.push(c);
    return c;
  };
  const { ragApp, ragServer, ragUrl } = await startRagApp({
    logger,
    ragDbs,
    auth,
    agentUrl: opts.agentUrl,
    graph: graphTarget,
  });

  const prefix = uniqueName('gq');
  const producer = workerConnection(testInfra.redisUrl);
  const queue = createQueue<CrawlJob>(CRAWL_QUEUE, producer, {}, prefix);
  const crawlOutbound = createOutboundClient({ allowHosts: opts.allowHosts });
  const deps: AppDeps = {
    logger,
    db: dbs.conn,
    auth,
    crawlOutbound,
    serviceOutbound: serviceClient(
      [`127.0.0.1:${ragServer.port}`, opts.agentUrl ? new URL(opts.agentUrl).host : ''].filter(Boolean).join(','),
    ),
    rag: { baseUrl: ragUrl, secret: INTERNAL_SECRET, timeoutMs: 5_000 },
    agent: opts.agentUrl ? { baseUrl: opts.agentUrl, secret: INTERNAL_SECRET, timeoutMs: 5_000 } : null,
    internalSecret: INTERNAL_SECRET,
    limits: {
      pageMaxBytes: opts.pageMaxBytes ?? 256 * 1024,
      pageTimeoutMs: opts.pageTimeoutMs ?? 10_000,
      concurrency: 3,
      chromiumPath: '/usr/bin/chromium',
      userAgent: 'graph-test',
    },
    enqueue: async (taskId) => {
      await queue.add('crawl', { task_id: taskId }, { jobId: taskId });
    },
    readiness: { mongodb: () => pingMongo(dbs.conn) },
    changes: opts.changes,
    indexStats: opts.indexStats,
  };
  const parts = createGraphParts(deps);
  const app = createApp(deps, parts);
  const graphServer: RunningServer = await listen(app, 0, undefined, '127.0.0.1');
  graphTarget.baseUrl = `http://127.0.0.1:${graphServer.port}`;
  await syncIndexes(dbs.conn);
  await syncIndexes(ragDbs.conn);
  const consumers: { unit: Unit; conn: RedisConnection }[] = [];
  return {
    app,
    deps,
    lines,
    parts,
    graphUrl: graphTarget.baseUrl,
    ragApp,
    ragUrl,
    dbs,
    ragDbs,
    alice: await dbs.mintKey(ALICE),
    bob: await dbs.mintKey(BOB),
    queue,
    startConsumer(o = {}) {
      const conn = workerConnection(testInfra.redisUrl);
      const lock = o.lockDurationMs ?? 30_000;
      const unit = startCrawlConsumer({
        tasks: parts.tasks,
        connection: conn,
        logger,
        prefix,
        concurrency: 1,
        lockDurationMs: lock,
        stalledIntervalMs: Math.max(500, lock / 2),
      });
      consumers.push({ unit, conn });
      return unit;
    },
    createRag: (key, over = {}) => createRagThrough(ragApp, key, over),
    close: () =>
      closeGraphStack({
        consumers,
        queue,
        producer,
        parts,
        crawlOutbound,
        serviceClients,
        graphServer,
        ragServer,
        dbs,
        ragDbs,
      }),
  };
}

/**
 * The real rag app (which owns RAG configurations) on its own databases, listening on a loopback port. `graph` is
 * the graph app's target object itself (not a copy): its `baseUrl` is filled in once the graph app listens.
 */
async function startRagApp({
  logger,
  ragDbs,
  auth,
  agentUrl,
  graph,
}: {
  logger: Logger;
  ragDbs: TestDatabases;
  auth: ApiKeyAuth;
  agentUrl: string | undefined;
  graph: { baseUrl: string; secret: string; timeoutMs: number };
}): Promise<{ ragApp: Express; ragServer: RunningServer; ragUrl: string }> {
  const ragApp = createRagApp({
    logger,
    db: ragDbs.conn,
    auth,
    outbound: createOutboundClient({ allowHosts: '127.0.0.1' }),
    agent: { baseUrl: agentUrl ?? 'http://127.0.0.1:9', secret: INTERNAL_SECRET, timeoutMs: 5_000 },
    internalSecret: INTERNAL_SECRET,
    readiness: { mongodb: () => pingMongo(ragDbs.conn) },
    graph,
  });
  const ragServer: RunningServer = await listen(ragApp, 0, undefined, '127.0.0.1');
  const ragUrl = `http://127.0.0.1:${ragServer.port}`;
  return { ragApp, ragServer, ragUrl };
}

/** A RAG configuration of the key's owner, created through the real rag service; `over` replaces fields. */
const createRagThrough = (ragApp: Express, key: string, over: Record<string, unknown>): Promise<string> =>
  createRagConfig(ragApp, key, {
    collection_name: uniqueName('kg').toLowerCase(),
    vector_store_provider: 'neo4j',
    ...over,
  });

/** Stops the stack: the consumers, the queue, the graph parts and clients, both servers, then both databases. */
async function closeGraphStack(r: {
  consumers: { unit: Unit; conn: RedisConnection }[];
  queue: Queue<CrawlJob>;
  producer: RedisConnection;
  parts: GraphParts;
  crawlOutbound: OutboundClient;
  serviceClients: OutboundClient[];
  graphServer: RunningServer;
  ragServer: RunningServer;
  dbs: TestDatabases;
  ragDbs: TestDatabases;
}): Promise<void> {
  for (const c of r.consumers) {
    await c.unit.stop();
    await disconnectRedis(c.conn);
  }
  await r.queue.obliterate({ force: true }).catch(() => undefined);
  await r.queue.close();
  await disconnectRedis(r.producer);
  await r.parts.close();
  r.crawlOutbound.close();
  for (const c of r.serviceClients) c.close();
  await r.graphServer.close(0);
  await r.ragServer.close(0);
  await r.dbs.cleanup();
  await r.ragDbs.cleanup();
}
