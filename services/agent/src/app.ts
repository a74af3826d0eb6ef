import { Router, type Express } from 'express';
import type { ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';
import type { SecretBox } from '@platform/secrets';
import { createAgentRepository } from './agents/agent.repository';
import { createAgentRoutes } from './agents/agent.routes';
import { createAgentService } from './agents/agent.service';
import { createCredentialRepository } from './credentials/credential.repository';
import { createCredentialRoutes } from './credentials/credential.routes';
import { createCredentialService } from './credentials/credential.service';
import { openapi } from './openapi';

export interface AppDeps {
  logger: Logger;
  /** The agent service's database. */
  db: Connection;
  auth: ApiKeyAuth;
  /** Seals provider credentials at rest. */
  box: SecretBox;
  readiness: Record<string, ReadinessCheck>;
  clock?: () => Date;
  jsonLimit?: string;
}

/** Assembles the agent service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const agents = createAgentService({ repo: createAgentRepository(deps.db), clock });
  const credentials = createCredentialService({ repo: createCredentialRepository(deps.db), box: deps.box, clock });

  const routes = Router();
  routes.use(createAgentRoutes(agents));
  routes.use(createCredentialRoutes(credentials));

  return createHttpApp({
    service: 'agent',
    logger: deps.logger,
    routes,
    protect: { paths: ['/v3'], middleware: deps.auth.middleware },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
  }).app;
}
