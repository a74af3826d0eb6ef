import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router, type Express } from 'express';

import { withOnBehalfOf, type ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, mountRoutes, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createCredentialClient, createEmbeddings } from '@platform/retrieval';
import type { ServiceTarget } from '@platform/service-client';

import { createCredentialCheck, type AgentServiceTarget } from './credentials/credential-check';
import { createDocumentRepository } from './knowledge/document.repository';
import { documentRoutes } from './knowledge/documents.routes';
import { createGraphTrainClient } from './knowledge/graph-train.client';
import { createKnowledgeService, type VectorStores } from './knowledge/knowledge.service';
import { createOcrClient } from './knowledge/ocr.client';
import { trainingRoutes } from './knowledge/training.routes';
import { openapi } from './openapi';
import { createRagRepository } from './rag/rag.repository';
import { ragRoutes } from './rag/rag.routes';
import { createRagService } from './rag/rag.service';
import { createRetrieveClient, type GraphServiceTarget } from './rag/retrieve.client';
import { retrieveRoutes } from './rag/retrieve.routes';

export interface AppDeps {
  logger: Logger;
  /** The rag service's database. */
  db: Connection;
  auth: ApiKeyAuth;
  /** Calls to the agent service go through it (address guard, time limit, size cap). */
  outbound: OutboundClient;
  /** Where and how credential ownership is asked. */
  agent: AgentServiceTarget;
  /** Secret of the internal on-behalf-of path (e.g. the graph service); unset disables that path. */
  internalSecret?: string | null;
  /** The graph service: knowledge graph retrievals and website training (main.ts always sets it). */
  graph?: GraphServiceTarget;
  /** The OCR service, which reads the text of uploaded PDFs (main.ts always sets it); unset: PDF training → 503. */
  ocr?: ServiceTarget;
  /** Where chunk vectors are kept, by `vector_store_provider`; unset: lexical (BM25) search only. */
  vectors?: VectorStores | null;
  /** Time limit of one website training through the graph service (a crawl). */
  graphTrainTimeoutMs?: number;
  /** Time limit of one embeddings call to a provider. */
  embeddingTimeoutMs?: number;
  /** Where uploads wait while they are read (default: a folder in the system's temporary directory). */
  uploadDir?: string;
  readiness: Record<string, ReadinessCheck>;
  clock?: () => Date;
  jsonLimit?: string;
}

/** Assembles the rag service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const credentials = createCredentialCheck({ outbound: deps.outbound, target: deps.agent, logger: deps.logger });
  const rag = createRagService({ repo: createRagRepository(deps.db), credentials, clock });

  const { outbound, logger } = deps;
  const unconfigured = { baseUrl: 'http://127.0.0.1:9', secret: null };
  const knowledge = createKnowledgeService({
    configOf: (owner, id) => rag.get(owner, id),
    repo: createDocumentRepository(deps.db),
    embeddings: createEmbeddings({
      credentials: createCredentialClient({ outbound, target: deps.agent, logger }),
      outbound,
      timeoutMs: deps.embeddingTimeoutMs ?? 30_000,
      logger,
    }),
    vectors: deps.vectors ?? null,
    ocr: createOcrClient({ outbound, target: deps.ocr ?? unconfigured, logger }),
    graph: createGraphTrainClient({
      outbound,
      target: deps.graph ?? unconfigured,
      timeoutMs: deps.graphTrainTimeoutMs ?? 600_000,
      logger,
    }),
    logger,
    clock,
  });

  const routes = Router();
  // Deleting a configuration removes its knowledge base first (documents, chunks, vectors): the delete route does.
  routes.use(mountRoutes(ragRoutes, { rag, knowledge }));
  routes.use(mountRoutes(documentRoutes, knowledge));
  const graph = deps.graph ? createRetrieveClient({ outbound, target: deps.graph, logger }) : null;
  routes.use(mountRoutes(retrieveRoutes, { knowledge, graph }));

  // Training reads its own bodies (a larger JSON limit, multipart uploads): a raw router that checks the API key first.
  const auth = withOnBehalfOf({ apiKey: deps.auth.middleware, secret: deps.internalSecret });
  const training = Router();
  training.use('/v3/train', auth);
  training.use(
    mountRoutes(trainingRoutes, {
      knowledge,
      uploadDir: deps.uploadDir ?? join(tmpdir(), 'rag-uploads'),
      jsonLimit: deps.jsonLimit ?? '1mb',
    }),
  );
  return createHttpApp({
    service: 'rag',
    logger: deps.logger,
    routes,
    rawRoutes: [training],
    protect: { paths: ['/v3'], middleware: auth },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
  }).app;
}
