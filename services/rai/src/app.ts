import { Router, type Express } from 'express';

import { withOnBehalfOf, type ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, mountRoutes, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createCredentialClient, type AgentServiceTarget } from '@platform/providers';

import { inferenceRoutes } from './inference/inference.routes';
import { createInferenceService } from './inference/inference.service';
import { createJudge } from './judge/judge.service';
import { openapi } from './openapi';
import { createPolicyRepository } from './policies/policy.repository';
import { policyRoutes } from './policies/policy.routes';
import { createPolicyService } from './policies/policy.service';

export interface AppDeps {
  logger: Logger;
  /** The rai service's database. */
  db: Connection;
  auth: ApiKeyAuth;
  /** Secret of the internal on-behalf-of path (the agent service's RAI feature); unset disables that path. */
  internalSecret?: string | null;
  /** The outbound guard for LLM judge calls (the operator's allow-list). */
  outbound: OutboundClient;
  /** The agent service, which opens the credential an LLM judge names; null: no judge can be enabled. */
  agent: AgentServiceTarget | null;
  readiness: Record<string, ReadinessCheck>;
  clock?: () => Date;
  jsonLimit?: string;
}

/** Assembles the rai service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const credentials = createCredentialClient({ outbound: deps.outbound, target: deps.agent, logger: deps.logger });
  const policies = createPolicyService({
    repo: createPolicyRepository(deps.db),
    clock,
    credentialOpens: async (owner, id) => (await credentials.open(owner, id)) !== null,
  });
  const judge = createJudge({ credentials, outbound: deps.outbound, logger: deps.logger });
  const inference = createInferenceService({ policies, logger: deps.logger, judge });

  const routes = Router();
  routes.use(mountRoutes(policyRoutes, policies));
  routes.use(mountRoutes(inferenceRoutes, inference));

  const auth = withOnBehalfOf({ apiKey: deps.auth.middleware, secret: deps.internalSecret });
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
