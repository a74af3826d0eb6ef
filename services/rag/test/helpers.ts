import type { Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { listen, type RunningServer } from '@platform/http';
import { createOutboundClient } from '@platform/outbound';
import { captureLogger, createTestDatabases, uniqueName, type TestDatabases } from '@platform/testing';

import { startAgentApp, type AgentTestApp } from '../../agent/test/helpers';
import { createApp } from '../src/app';

export const INTERNAL_SECRET = 'rag-test-internal-secret-0123456789abcdef';

/** A RAG configuration of the key's owner, created through a real rag app (`POST /v3/rag/`); `over` replaces fields. */
export async function createRagConfig(app: Express, key: string, over: Record<string, unknown> = {}): Promise<string> {
  const res = await request(app)
    .post('/v3/rag/')
    .set('x-api-key', key)
    .send({
      llm_credential_id: 'ext_llm',
      embedding_credential_id: 'ext_embed',
      vector_db_credential_id: 'ext_vdb',
      collection_name: uniqueName('rag').toLowerCase(),
      llm_model: 'gpt-4o-mini',
      embedding_model: 'text-embedding-3-small',
      vector_store_provider: 'lancedb',
      ...over,
    });
  if (res.status !== 200) throw new Error(`rag not created: ${res.status} ${res.text}`);
  return res.body.id as string;
}

export interface RagTestApp {
  app: Express;
  dbs: TestDatabases;
  /** The real agent service, listening, which owns credentials. */
  agent: AgentTestApp;
  lines: string[];
  /** Stores a provider credential in the agent service for the owner of `agentKey`; returns its id. */
  credential(agentKey: string): Promise<string>;
  close(): Promise<void>;
}

/** The real rag app on a fresh database, asking a real agent service (on a local port) about credentials. */
export async function startRagApp(opts: { secret?: string | null } = {}): Promise<RagTestApp> {
  const agent = await startAgentApp({ internalSecret: INTERNAL_SECRET });
  const agentServer: RunningServer = await listen(agent.app, 0, undefined, '127.0.0.1');
  const dbs = await createTestDatabases('rag');
  const { logger, lines } = captureLogger('rag');
  const outbound = createOutboundClient({ allowHosts: `127.0.0.1:${agentServer.port}` });
  const app = createApp({
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    outbound,
    agent: {
      baseUrl: `http://127.0.0.1:${agentServer.port}`,
      secret: opts.secret === undefined ? INTERNAL_SECRET : opts.secret,
      timeoutMs: 3_000,
    },
    internalSecret: INTERNAL_SECRET,
    readiness: { mongodb: () => pingMongo(dbs.conn) },
  });
  await syncIndexes(dbs.conn);
  return {
    app,
    dbs,
    agent,
    lines,
    async credential(agentKey) {
      const res = await request(agent.app)
        .post('/v3/providers/credentials')
        .set('x-api-key', agentKey)
        .send({ name: 'openai', provider_id: 'openai', credentials: { api_key: 'sk-test-key-0123456789' } });
      if (res.status !== 201) throw new Error(`credential not created: ${res.status} ${res.text}`);
      return res.body.credential_id as string;
    },
    async close() {
      outbound.close();
      await agentServer.close(0);
      await agent.close();
      await dbs.cleanup();
    },
  };
}

/** A complete create body with external credential ids (not ours: kept as given). */
export const ragBody = (over: Record<string, unknown> = {}) => ({
  llm_credential_id: 'lyzr_openai',
  embedding_credential_id: 'lyzr_openai',
  vector_db_credential_id: 'lyzr_qdrant',
  collection_name: 'docs_main',
  llm_model: 'gpt-4o-mini',
  embedding_model: 'text-embedding-3-small',
  vector_store_provider: 'qdrant',
  ...over,
});
