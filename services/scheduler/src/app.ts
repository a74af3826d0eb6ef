import { Router, type Express } from 'express';
import type { Registry } from 'prom-client';

import type { AgentDirectory } from '@platform/agent-client';
import type { ApiKeyAuth } from '@platform/auth';
import { newObjectId, type Connection } from '@platform/db';
import { createHttpApp, mountRoutes, type RateLimit, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';
import type { AllowEntry } from '@platform/outbound';
import { localChangeBusOf, type ChangeBus, type LimitPublisher, type Queue } from '@platform/queue';
import {
  createExecutionRepository,
  createIdempotencyStore,
  createScheduleRepository,
  enqueueRun,
  type FireJob,
  type RunQueues,
  type WebhookStats,
} from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import { createExecutionService } from './executions/execution.service';
import { replayRoutes } from './executions/replay.routes';
import { createReplayService } from './executions/replay.service';
import { openapi } from './openapi';
import { createFiring } from './schedules/firing';
import { scheduleRoutes } from './schedules/schedule.routes';
import { createScheduleService } from './schedules/schedule.service';
import { triggerRoutes } from './webhooks/trigger.routes';
import { createTriggerService } from './webhooks/trigger.service';
import { createWebhookRepository, type WebhookRepository } from './webhooks/webhook.repository';
import { webhookRoutes } from './webhooks/webhook.routes';
import { createWebhookService, type WebhookService } from './webhooks/webhook.service';
import { DEFAULT_TRIGGER_CACHE, withTriggerCache } from './webhooks/webhook.trigger-cache';

export interface AppDeps {
  logger: Logger;
  /** The scheduler's database. */
  db: Connection;
  auth: ApiKeyAuth;
  /** Seals webhook signing secrets at rest. */
  box: SecretBox;
  /**
   * Seals HTTP schedules' header values and the callback secrets of webhooks and schedules (the worker opens them
   * with the same key).
   */
  scheduleBox: SecretBox;
  /** The agent service, asked whether an agent exists and belongs to the caller. */
  agents: AgentDirectory;
  /** Public base URL of this service, for webhook_url. */
  publicBaseUrl: string;
  readiness: Record<string, ReadinessCheck>;
  /** Producer side of the run queues (`agent-runs`, `http-calls`). */
  queues: RunQueues;
  /** Producer side of `schedule-fires`, whose job schedulers fire the cron schedules. */
  fires: Queue<FireJob>;
  /** Webhook trigger statistics (coalesced writes; main flushes them on shutdown). */
  stats: WebhookStats;
  triggers?: TriggerSettings;
  /** Calls per webhook on the public trigger route (429 beyond); absent: unlimited. */
  webhookRateLimit?: RateLimit;
  /** Where /metrics reads from; main shares it with the outbox's metrics. A registry of the app's own by default. */
  registry?: Registry;
  /** Announces webhook changes to every replica (their trigger caches drop the webhook); in-process by default. */
  webhookChanges?: ChangeBus;
  /** How long a replica uses a cached webhook if a change message is lost (default 5000 ms). */
  webhookCacheTtlMs?: number;
  /** Publishes webhooks' `max_concurrency` for the worker (contract §8); unset: not published. */
  webhookLimits?: LimitPublisher;
  clock?: () => Date;
  jsonLimit?: string;
  /**
   * Hosts that callbacks and HTTP schedules may name as literal IPs although loopback or private
   * (OUTBOUND_ALLOW_HOSTS, the worker's value); none by default.
   */
  outboundAllow?: AllowEntry[];
}

/** How triggered runs are queued. */
export interface TriggerSettings {
  /** Attempts of a run: 1 + retries of transient failures (default 3). */
  maxAttempts?: number;
  /** How long a trigger waits for Redis before leaving the run to the outbox (default 1000 ms). */
  enqueueTimeoutMs?: number;
  /** First retry delay, doubling per attempt (default 2000 ms). */
  retryBackoffMs?: number;
}

/** The deps' bus; apps given none share one in-process bus per `deps`. */
const changesOf = (deps: AppDeps): ChangeBus => deps.webhookChanges ?? localChangeBusOf(deps);

/** The webhook repository with the trigger's lookup cached; its writes announce changes on the deps' bus. */
export function createWebhookStore(deps: AppDeps): WebhookRepository {
  return withTriggerCache(createWebhookRepository(deps.db), {
    ...DEFAULT_TRIGGER_CACHE,
    ttlMs: deps.webhookCacheTtlMs ?? DEFAULT_TRIGGER_CACHE.ttlMs,
    bus: changesOf(deps),
  });
}

/** The webhook service over `deps` and its repository. */
export function createWebhooks(deps: AppDeps, repo = createWebhookStore(deps)): WebhookService {
  return createWebhookService({
    repo,
    agents: deps.agents,
    box: deps.box,
    callbackBox: deps.scheduleBox,
    clock: deps.clock ?? (() => new Date()),
    publicBaseUrl: deps.publicBaseUrl,
    limits: deps.webhookLimits,
    allow: deps.outboundAllow,
  });
}

/** Assembles the scheduler service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const webhookRepo = createWebhookStore(deps);
  const webhooks = createWebhooks(deps, webhookRepo);
  const executions = createExecutionRepository(deps.db);
  const settings = {
    timeoutMs: deps.triggers?.enqueueTimeoutMs ?? 1_000,
    backoffMs: deps.triggers?.retryBackoffMs ?? 2_000,
  };
  const idempotency = createIdempotencyStore(deps.db);
  const trigger = createTriggerService({
    webhooks: webhookRepo,
    executions,
    idempotency,
    stats: deps.stats,
    box: deps.box,
    enqueue: (exec) => enqueueRun(deps.queues, exec, settings),
    maxAttempts: deps.triggers?.maxAttempts ?? 3,
    clock,
    logger: deps.logger,
  });

  const schedules = createScheduleService({
    repo: createScheduleRepository(deps.db),
    executions,
    agents: deps.agents,
    box: deps.scheduleBox,
    firing: createFiring(deps.fires, deps.logger, settings.timeoutMs),
    startRun: (exec) => enqueueRun(deps.queues, exec, settings),
    clock,
    logger: deps.logger,
    allow: deps.outboundAllow,
  });

  const routes = Router();
  const runs = createExecutionService({ repo: executions, clock });
  const replay = createReplayService({
    executions,
    idempotency,
    webhook: (owner, id) => webhooks.runTarget(owner, id),
    schedule: (owner, kind, id) => schedules.callbackTarget(owner, kind, id),
    enqueue: (exec) => enqueueRun(deps.queues, exec, settings),
    newId: newObjectId,
    clock,
    logger: deps.logger,
  });
  routes.use(mountRoutes(replayRoutes, { replay, limit: deps.webhookRateLimit }));
  routes.use(mountRoutes(webhookRoutes, { service: webhooks, executions: runs }));
  routes.use(mountRoutes(scheduleRoutes, { service: schedules, executions: runs, webhooks }));

  return createHttpApp({
    service: 'scheduler',
    logger: deps.logger,
    routes,
    rawRoutes: [mountRoutes(triggerRoutes, { trigger, limit: deps.webhookRateLimit })],
    protect: { paths: ['/agent-webhooks', '/schedules', '/http-schedules'], middleware: deps.auth.middleware },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
    registry: deps.registry,
  }).app;
}
