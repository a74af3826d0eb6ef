import { Router, type Express } from 'express';

import { withOnBehalfOf, type ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

import { createCredentialCheck, type AgentServiceTarget } from './credentials/credential-check';
import { openapi } from './openapi';
import { createRagRepository } from './rag/rag.repository';
import { createRagRoutes } from './rag/rag.routes';
import { createRagService } from './rag/rag.service';
import { createRetrieveClient, type GraphServiceTarget } from './rag/retrieve.client';
import { createRetrieveRoutes } from './rag/retrieve.routes';

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
  /** The graph service that answers retrievals (main.ts always sets it); unset: no retrieve route. */
  graph?: GraphServiceTarget;
  readiness: Record<string, ReadinessCheck>;
  clock?: () => Date;
  jsonLimit?: string;
}

/** Assembles the rag service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const credentials = createCredentialCheck({ outbound: deps.outbound, target: deps.agent, logger: deps.logger });
  const rag = createRagService({ repo: createRagRepository(deps.db), credentials, clock });

  const routes = Router();
  routes.use(createRagRoutes(rag));
  if (deps.graph)
    routes.use(
      createRetrieveRoutes(
        rag,
        createRetrieveClient({ outbound: deps.outbound, target: deps.graph, logger: deps.logger }),
      ),
    );

  const auth = withOnBehalfOf({ apiKey: deps.auth.middleware, secret: deps.internalSecret, logger: deps.logger });
  return createHttpApp({
    service: 'rag',
    logger: deps.logger,
    routes,
    protect: { paths: ['/v3'], middleware: auth },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
  }).app;
}
