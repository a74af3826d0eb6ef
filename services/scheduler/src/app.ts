import { Router, type Express } from 'express';
import type { ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';
import type { SecretBox } from '@platform/secrets';
import type { AgentDirectory } from './agents/agent.client';
import { openapi } from './openapi';
import { createWebhookRepository } from './webhooks/webhook.repository';
import { createWebhookRoutes } from './webhooks/webhook.routes';
import { createWebhookService, type WebhookService } from './webhooks/webhook.service';

export interface AppDeps {
  logger: Logger;
  /** The scheduler's database. */
  db: Connection;
  auth: ApiKeyAuth;
  /** Seals webhook signing secrets at rest. */
  box: SecretBox;
  /** The agent service, asked whether an agent exists and belongs to the caller. */
  agents: AgentDirectory;
  /** Public base URL of this service, for webhook_url. */
  publicBaseUrl: string;
  readiness: Record<string, ReadinessCheck>;
  clock?: () => Date;
  jsonLimit?: string;
}

/** The webhook service over `deps` (what the routes use; also what the trigger will verify secrets with). */
export function createWebhooks(deps: AppDeps): WebhookService {
  return createWebhookService({
    repo: createWebhookRepository(deps.db),
    agents: deps.agents,
    box: deps.box,
    clock: deps.clock ?? (() => new Date()),
    publicBaseUrl: deps.publicBaseUrl,
  });
}

/** Assembles the scheduler service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const routes = Router();
  routes.use(createWebhookRoutes(createWebhooks(deps)));

  return createHttpApp({
    service: 'scheduler',
    logger: deps.logger,
    routes,
    protect: { paths: ['/agent-webhooks'], middleware: deps.auth.middleware },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
  }).app;
}
