import { randomBytes } from 'node:crypto';
import type { Express } from 'express';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { createOutboundClient } from '@platform/outbound';
import { createSecretBox } from '@platform/secrets';
import { captureLogger, createTestDatabases, type TestDatabases, type TestDatabasesOptions } from '@platform/testing';

import { createApp } from '../src/app';
import type { RaiTarget } from '../src/rai/rai.types';
import type { TaskQueue } from '../src/tasks/task.types';

export interface AgentTestApp {
  app: Express;
  dbs: TestDatabases;
  /** Every log line the app wrote. */
  lines: string[];
  close(): Promise<void>;
}

export interface AgentTestOptions {
  cacheTtlMs?: number;
  mongoUri?: string;
  /** More `connectMongo` options for the app's databases (a private store's adapter settings). */
  connect?: TestDatabasesOptions['connect'];
  /** OUTBOUND_ALLOW_HOSTS for the app's outbound client: the local stand-ins for LLM providers. */
  allowHosts?: string;
  providerTimeoutMs?: number;
  toolTimeoutMs?: number;
  toolEnhancer?: { baseUrl: string; model: string };
  internalSecret?: string | null;
  clock?: () => Date;
  /** The RAI service the RAI feature asks. */
  rai?: RaiTarget;
  /** Where inference tasks go. */
  taskQueue?: TaskQueue;
}

/** The real agent service app on a fresh database of the real server. */
export async function startAgentApp(opts: AgentTestOptions = {}): Promise<AgentTestApp> {
  const dbs = await createTestDatabases('agent', opts.mongoUri, { connect: opts.connect });
  const { logger, lines } = captureLogger('agent');
  const outbound = createOutboundClient({ allowHosts: opts.allowHosts ?? '' });
  const app = createApp({
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: opts.cacheTtlMs ?? 30_000 }),
    box: createSecretBox(randomBytes(32)),
    outbound,
    providerTimeoutMs: opts.providerTimeoutMs,
    toolTimeoutMs: opts.toolTimeoutMs,
    toolEnhancer: opts.toolEnhancer,
    internalSecret: opts.internalSecret,
    rai: opts.rai,
    taskQueue: opts.taskQueue,
    clock: opts.clock,
    readiness: { mongodb: () => pingMongo(dbs.conn) },
  });
  await syncIndexes(dbs.conn);
  return {
    app,
    dbs,
    lines,
    close: async () => {
      outbound.close();
      await dbs.cleanup();
    },
  };
}

/** A minimal valid general agent body. */
export const agentBody = (over: Record<string, unknown> = {}) => ({
  name: 'Support bot',
  description: 'Answers questions',
  system_prompt: 'You are {{role}}.',
  provider_id: 'OpenAI',
  model: 'gpt-4o-mini',
  temperature: 0.7,
  top_p: 0.9,
  features: [{ type: 'MEMORY', config: { max_messages_context_count: 10 }, priority: 0 }],
  tools: [],
  response_format: { type: 'text' },
  ...over,
});
