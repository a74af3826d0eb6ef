import './tracing';

import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { createOutboundClient } from '@platform/outbound';
import { createVectorStores } from '@platform/retrieval';
import { openInfra, runService, startMain } from '@platform/service';

import { createApp } from './app';
import { configSchema, type RagServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit<RagServiceConfig>(configSchema, process.env, 'rag');
  const logger = createLogger({ service: 'rag', level: config.LOG_LEVEL });
  const infra = await openInfra({ name: 'rag', config, logger });
  // The agent service is ours and usually on a private address: its host is allowed beside the operator's list.
  const agentHost = new URL(config.AGENT_URL).host;
  const graphHost = new URL(config.GRAPH_URL).host;
  const ocrHost = new URL(config.OCR_URL).host;
  const outbound = createOutboundClient({
    allowHosts: [config.OUTBOUND_ALLOW_HOSTS, agentHost, graphHost, ocrHost].filter(Boolean).join(','),
  });
  const vectors = createVectorStores({ uri: config.VECTOR_STORE_URI, logger });
  const app = createApp({
    logger,
    db: infra.db,
    auth: infra.auth,
    outbound,
    agent: {
      baseUrl: config.AGENT_URL,
      secret: config.INTERNAL_SERVICE_SECRET || null,
      timeoutMs: config.AGENT_TIMEOUT_MS,
    },
    internalSecret: config.INTERNAL_SERVICE_SECRET || null,
    graph: {
      baseUrl: config.GRAPH_URL,
      secret: config.INTERNAL_SERVICE_SECRET || null,
      timeoutMs: config.GRAPH_TIMEOUT_MS,
    },
    graphTrainTimeoutMs: config.GRAPH_TRAIN_TIMEOUT_MS,
    ocr: { baseUrl: config.OCR_URL, secret: config.INTERNAL_SERVICE_SECRET || null, timeoutMs: config.OCR_TIMEOUT_MS },
    vectors,
    embeddingTimeoutMs: config.EMBEDDING_TIMEOUT_MS,
    uploadDir: config.UPLOAD_DIR,
    readiness: infra.readiness,
    jsonLimit: config.JSON_BODY_LIMIT,
  });
  await runService({
    name: 'rag',
    logger,
    app,
    port: config.PORT,
    infra,
    graceMs: config.SHUTDOWN_GRACE_MS,
    // The vector stores stay open until the process ends: units stop before in-flight requests have finished.
    units: [() => ({ name: 'outbound client', stop: () => outbound.close() })],
  });
}

startMain('rag', main);
