/**
 * Every service of `services/` built as its `main.ts` builds it, through its own `createApp(deps)`, on real FerretDB
 * and Redis: found by folder, so a new service is covered as soon as it has `src/app.ts`. The deps are one set holding
 * what any service's `createApp` asks for (each takes the fields it names); a service that needs something new
 * fails here with its own error, and its deps go into `sharedDeps`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';

import { createAgentDirectory } from '@platform/agent-client';
import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { createOutboundClient } from '@platform/outbound';
import { createQueue, producerConnection, QUEUE_NAMES, type Queue } from '@platform/queue';
import { createWebhookStats } from '@platform/scheduling';
import { createSecretBox } from '@platform/secrets';
import { captureLogger, createTestDatabases, testInfra, uniqueName, type TestDatabases } from '@platform/testing';

const SERVICES_DIR = join(__dirname, '..', '..', 'services');

/** Every folder of `services/` with a `src/app.ts`. */
export const SERVICE_NAMES: string[] = readdirSync(SERVICES_DIR)
  .filter((name) => existsSync(join(SERVICES_DIR, name, 'src', 'app.ts')))
  .sort();

/** The admin token the shared deps give (the worker mounts its queue dashboard with it). */
export const ADMIN_TOKEN = 'openapi-admin-token-0123456789abcdef';
const SECRET = 'openapi-internal-secret-0123456789abcdef';

export interface SharedDeps {
  deps: Record<string, unknown>;
  dbs: TestDatabases;
  close(): Promise<void>;
}

/** One set of real deps for every service's createApp. Nothing is listened on; the apps are driven in memory. */
export async function sharedDeps(): Promise<SharedDeps> {
  const dbs = await createTestDatabases('openapi');
  const { logger } = captureLogger('openapi');
  const redis = producerConnection(testInfra.redisUrl);
  redis.on('error', () => undefined);
  const prefix = uniqueName('q');
  const queue = <T>(name: string) => createQueue<T>(name, redis, {}, prefix);
  const queues = { agentRuns: queue(QUEUE_NAMES.agentRuns), httpCalls: queue(QUEUE_NAMES.httpCalls) };
  const fires = queue(QUEUE_NAMES.scheduleFires);
  const all: Queue[] = [queues.agentRuns, queues.httpCalls, fires];
  for (const q of all) q.on('error', () => undefined);
  const outbound = createOutboundClient({ allowHosts: '' });
  const uploadDir = mkdtempSync(join(tmpdir(), 'openapi-uploads-'));
  const closed = 'http://127.0.0.1:9';
  const deps: Record<string, unknown> = {
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    box: createSecretBox(randomBytes(32)),
    scheduleBox: createSecretBox(randomBytes(32)),
    outbound,
    crawlOutbound: outbound,
    serviceOutbound: outbound,
    agents: createAgentDirectory({ baseUrl: closed, timeoutMs: 1_000, logger }),
    agent: { baseUrl: closed, secret: SECRET, timeoutMs: 1_000 },
    rai: { baseUrl: closed, secret: SECRET, timeoutMs: 1_000 },
    rag: { baseUrl: closed, secret: SECRET, timeoutMs: 1_000 },
    graph: { baseUrl: closed, secret: SECRET, timeoutMs: 1_000 },
    limits: {
      pageMaxBytes: 1024 * 1024,
      pageTimeoutMs: 1_000,
      concurrency: 1,
      chromiumPath: '/nonexistent/chromium',
      userAgent: 'openapi-test',
    },
    enqueue: () => Promise.resolve(),
    internalSecret: SECRET,
    publicBaseUrl: 'https://hooks.example.test',
    readiness: {},
    queues,
    fires,
    stats: createWebhookStats(dbs.conn, logger),
    alive: () => true,
    upstreams: {},
    timeoutMs: 1_000,
    uploadDir,
    limiter: { concurrency: 1, maxQueued: 1, waitMs: 1_000 },
    document: { timeoutMs: 1_000, memoryMb: 256 },
    ocr: { languages: 'eng', dpi: 150, maxOcrPages: 1 },
    admin: { token: ADMIN_TOKEN, queues: all },
  };
  return {
    deps,
    dbs,
    async close() {
      outbound.close();
      for (const q of all) await q.close().catch(() => undefined);
      redis.disconnect();
      rmSync(uploadDir, { recursive: true, force: true });
      await dbs.cleanup();
    },
  };
}

export interface BuiltService {
  name: string;
  app: Express;
  /** The document as the app serves it at /openapi.json. */
  doc: Record<string, unknown>;
}

/** `name`'s app from its own createApp over `shared`, and the document it serves. */
export async function buildService(name: string, shared: SharedDeps): Promise<BuiltService> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(join(SERVICES_DIR, name, 'src', 'app.ts')) as { createApp?: (deps: unknown) => Express };
  if (typeof mod.createApp !== 'function') throw new Error(`services/${name}/src/app.ts exports no createApp`);
  const app = mod.createApp(shared.deps);
  const res = await request(app).get('/openapi.json');
  if (res.status !== 200) throw new Error(`${name}: GET /openapi.json answered ${res.status}`);
  return { name, app, doc: res.body as Record<string, unknown> };
}
