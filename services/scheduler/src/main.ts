import './tracing';

import { Registry } from 'prom-client';

import { createAgentDirectory } from '@platform/agent-client';
import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { parseAllowHosts } from '@platform/outbound';
import {
  createConcurrencyGate,
  createQueue,
  limitPublisher,
  openRedisChangeBus,
  QUEUE_NAMES,
  republishLimits,
} from '@platform/queue';
import {
  createExecutionRepository,
  createRepeatStrategy,
  createScheduleStats,
  createWebhookStats,
  ensureExecutionRetention,
  type AgentRunJob,
  type CallbackJob,
  type FireJob,
} from '@platform/scheduling';
import { createSecretBox, parseKey } from '@platform/secrets';
import { openInfra, runService, startMain } from '@platform/service';

import { createApp } from './app';
import { configSchema, type SchedulerServiceConfig } from './config';
import { startRunRecovery } from './runs/run-recovery';
import { startReconciler } from './schedules/reconciler.unit';
import { createWebhookRepository } from './webhooks/webhook.repository';

async function main(): Promise<void> {
  const config = loadConfigOrExit<SchedulerServiceConfig>(configSchema, process.env, 'scheduler');
  const logger = createLogger({ service: 'scheduler', level: config.LOG_LEVEL });
  // Redis fails fast while it is away: readiness reports it, nothing waits on it.
  const infra = await openInfra({ name: 'scheduler', config, logger, redis: 'producer' });
  const redis = infra.redis!;
  const queues = {
    agentRuns: createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, redis, {}, config.QUEUE_PREFIX),
    httpCalls: createQueue<AgentRunJob>(QUEUE_NAMES.httpCalls, redis, {}, config.QUEUE_PREFIX),
  };
  const fires = createQueue<FireJob>(QUEUE_NAMES.scheduleFires, redis, {}, config.QUEUE_PREFIX, createRepeatStrategy());
  const callbacks = createQueue<CallbackJob>(QUEUE_NAMES.callbacks, redis, {}, config.QUEUE_PREFIX);
  for (const q of [queues.agentRuns, queues.httpCalls, fires, callbacks]) q.on('error', () => undefined); // the connection reports it
  const stats = { webhooks: createWebhookStats(infra.db, logger), schedules: createScheduleStats(infra.db, logger) };
  // Webhook edits reach every replica's trigger cache through Redis pub/sub.
  const webhookChanges = openRedisChangeBus({
    url: config.REDIS_URL,
    publisher: redis,
    channel: `${config.QUEUE_PREFIX}:webhook-changed`,
    onError: (err) =>
      logger.warn('webhook change not announced; other replicas see it within the cache TTL', { err: err.message }),
  });
  const enqueue = { timeoutMs: config.ENQUEUE_TIMEOUT_MS, backoffMs: config.RETRY_BACKOFF_MS };
  // Webhooks' max_concurrency, for the worker, under the queue prefix (only setLimit is used here).
  const gate = createConcurrencyGate({ redis, prefix: config.QUEUE_PREFIX, leaseMs: 1, waitTtlMs: 1 });

  const registry = new Registry();
  const app = createApp({
    logger,
    registry,
    db: infra.db,
    auth: infra.auth,
    box: createSecretBox(parseKey(config.WEBHOOK_SECRET_ENCRYPTION_KEY)),
    scheduleBox: createSecretBox(parseKey(config.SCHEDULE_SECRET_ENCRYPTION_KEY)),
    agents: createAgentDirectory({
      baseUrl: config.AGENT_SERVICE_URL,
      timeoutMs: config.AGENT_SERVICE_TIMEOUT_MS,
      logger,
    }),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    outboundAllow: parseAllowHosts(config.OUTBOUND_ALLOW_HOSTS),
    readiness: infra.readiness,
    jsonLimit: config.JSON_BODY_LIMIT,
    queues,
    fires,
    stats: stats.webhooks,
    webhookRateLimit: infra.rateLimits.perWebhook,
    webhookChanges,
    webhookCacheTtlMs: config.WEBHOOK_CACHE_TTL_MS,
    webhookLimits: limitPublisher(gate, 'webhook', logger),
    triggers: {
      maxAttempts: config.TRIGGER_MAX_ATTEMPTS,
      enqueueTimeoutMs: config.ENQUEUE_TIMEOUT_MS,
      retryBackoffMs: config.RETRY_BACKOFF_MS,
    },
  });
  const executions = createExecutionRepository(infra.db);
  // Before anything writes a run: a store written by an earlier version is brought up to date, and the retention
  // TTL index made to match EXECUTION_RETENTION_DAYS (0: none, runs are kept).
  await executions.init();
  const retention = await ensureExecutionRetention(infra.db, config.EXECUTION_RETENTION_DAYS);
  logger.info('execution retention', { days: config.EXECUTION_RETENTION_DAYS, index: retention });

  await runService({
    name: 'scheduler',
    logger,
    app,
    port: config.PORT,
    infra,
    graceMs: config.SHUTDOWN_GRACE_MS,
    units: [
      // The outbox: runs that have not ended and whose job is not alive go back on their queue.
      () =>
        startRunRecovery({
          executions,
          queues,
          enqueue,
          stats,
          logger,
          intervalMs: config.OUTBOX_INTERVAL_MS,
          queuedAfterMs: config.RECOVER_QUEUED_AFTER_MS,
          runningAfterMs: config.RECOVER_RUNNING_AFTER_MS,
          maxRecoveries: config.MAX_RECOVERIES,
          registry,
          callbacks,
        }),
      // MongoDB → Redis for cron schedules: at start and every interval (repairs a flushed or restarted Redis).
      () =>
        startReconciler({
          db: infra.db,
          executions,
          fires,
          logger,
          intervalMs: config.RECONCILE_INTERVAL_MS,
          catchUpMs: config.SCHEDULE_CATCH_UP_MS,
          enqueueTimeoutMs: config.ENQUEUE_TIMEOUT_MS,
        }),
      () => ({ name: 'webhook changes', stop: () => webhookChanges.close() }),
      // Every webhook's limit again at start and every minute (Redis may have lost them).
      () => {
        const webhooks = createWebhookRepository(infra.db);
        return republishLimits({ kind: 'webhook', read: () => webhooks.concurrencyLimits(), gate, logger });
      },
      // Last to stop: what the other units and in-flight requests still write.
      () => ({
        name: 'queues and statistics',
        stop: () =>
          Promise.all([
            stats.webhooks.flush(),
            stats.schedules.flush(),
            ...[queues.agentRuns, queues.httpCalls, fires, callbacks].map((q) => q.close()),
          ]),
      }),
    ],
  });
}

startMain('scheduler', main);
