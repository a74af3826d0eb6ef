import { Router, type Express } from 'express';

import { withOnBehalfOf, type ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';

import { createInferenceRoutes } from './inference/inference.routes';
import { createInferenceService } from './inference/inference.service';
import { openapi } from './openapi';
import { createPolicyRepository } from './policies/policy.repository';
import { createPolicyRoutes } from './policies/policy.routes';
import { createPolicyService } from './policies/policy.service';

export interface AppDeps {
  logger: Logger;
  /** The rai service's database. */
  db: Connection;
  auth: ApiKeyAuth;
  /** Secret of the internal on-behalf-of path (the agent service's RAI feature); unset disables that path. */
  internalSecret?: string | null;
  readiness: Record<string, ReadinessCheck>;
  clock?: () => Date;
  jsonLimit?: string;
}

/** Assembles the rai service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const policies = createPolicyService({ repo: createPolicyRepository(deps.db), clock });
  const inference = createInferenceService({ policies, logger: deps.logger });

  const routes = Router();
  routes.use(createPolicyRoutes(policies));
  routes.use(createInferenceRoutes(inference));

  const auth = withOnBehalfOf({ apiKey: deps.auth.middleware, secret: deps.internalSecret, logger: deps.logger });
  return createHttpApp({
    service: 'rai',
    logger: deps.logger,
    routes,
    protect: { paths: ['/v1'], middleware: auth },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
  }).app;
}
