import './tracing';

import type { InferenceTaskJob } from '@platform/agent-client';
import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { createOutboundClient } from '@platform/outbound';
import {
  createConcurrencyGate,
  createQueue,
  limitPublisher,
  openRedisChangeBus,
  QUEUE_NAMES,
  republishLimits,
} from '@platform/queue';
import { createSecretBox, parseKey } from '@platform/secrets';
import { openInfra, runService, startMain } from '@platform/service';

import { createAgentRepository } from './agents/agent.repository';
import { createApp } from './app';
import { configSchema, type AgentServiceConfig } from './config';
import { backfillSessionRecords } from './sessions/session.backfill';
import { bullTaskQueue } from './tasks/task.queue';

async function main(): Promise<void> {
  const config = loadConfigOrExit<AgentServiceConfig>(configSchema, process.env, 'agent');
  const logger = createLogger({ service: 'agent', level: config.LOG_LEVEL });
  const infra = await openInfra({ name: 'agent', config, logger, redis: 'producer' });
  const taskJobs = createQueue<InferenceTaskJob>(QUEUE_NAMES.inferenceTasks, infra.redis!, {}, config.QUEUE_PREFIX);
  // The rai service is ours and usually on a private address: its host is allowed beside the operator's list.
  const raiHost = new URL(config.RAI_URL).host;
  const ragHost = new URL(config.RAG_URL).host;
  // Agent and credential edits reach every replica's run caches through Redis pub/sub.
  const changes = openRedisChangeBus({
    url: config.REDIS_URL,
    publisher: infra.redis!,
    channel: `${config.QUEUE_PREFIX}:agent-changed`,
    onError: (err) =>
      logger.warn('agent or credential change not announced; other replicas see it within AGENT_CACHE_TTL_MS', {
        err: err.message,
      }),
  });
  // Agents' max_concurrency, for the worker: under the queue prefix, so every process of the deployment agrees.
  // Only setLimit is used here (lease and wait times are the worker's).
  const gate = createConcurrencyGate({ redis: infra.redis!, prefix: config.QUEUE_PREFIX, leaseMs: 1, waitTtlMs: 1 });
  const outbound = createOutboundClient({
    allowHosts: [config.OUTBOUND_ALLOW_HOSTS, raiHost, ragHost].filter(Boolean).join(','),
  });

  const app = createApp({
    logger,
    db: infra.db,
    auth: infra.auth,
    box: createSecretBox(parseKey(config.CREDENTIALS_ENCRYPTION_KEY)),
    outbound,
    providerTimeoutMs: config.PROVIDER_TIMEOUT_MS,
    toolTimeoutMs: config.TOOL_CALL_TIMEOUT_MS,
    toolEnhancer: { baseUrl: config.TOOL_ENHANCE_BASE_URL, model: config.TOOL_ENHANCE_MODEL },
    internalSecret: config.INTERNAL_SERVICE_SECRET || null,
    rai: { baseUrl: config.RAI_URL, secret: config.INTERNAL_SERVICE_SECRET || null, timeoutMs: config.RAI_TIMEOUT_MS },
    knowledge: {
      baseUrl: config.RAG_URL,
      secret: config.INTERNAL_SERVICE_SECRET || null,
      timeoutMs: config.RAG_TIMEOUT_MS,
    },
    taskQueue: bullTaskQueue(taskJobs, {
      enqueueTimeoutMs: config.TASK_ENQUEUE_TIMEOUT_MS,
      attempts: config.TASK_ATTEMPTS,
      backoffMs: 2_000,
    }),
    readiness: infra.readiness,
    jsonLimit: config.JSON_BODY_LIMIT,
    changes,
    agentLimits: limitPublisher(gate, 'agent', logger),
    cacheTtlMs: config.AGENT_CACHE_TTL_MS,
  });
  await runService({
    name: 'agent',
    logger,
    app,
    port: config.PORT,
    infra,
    graceMs: config.SHUTDOWN_GRACE_MS,
    units: [
      () => ({ name: 'outbound client', stop: () => outbound.close() }),
      () => ({ name: 'agent changes', stop: () => changes.close() }),
      // Every agent's limit again at start and every minute (Redis may have lost them): the agents that have one,
      // from their index on max_concurrency, projected to two fields; once a minute per replica.
      () => {
        const agents = createAgentRepository(infra.db);
        return republishLimits({ kind: 'agent', read: () => agents.concurrencyLimits(), gate, logger });
      },
      // Sessions stored before session records existed get theirs once per database, in the background (a stop
      // meanwhile leaves it to the next start).
      () => {
        backfillSessionRecords(infra.db).then(
          (done) => done && logger.info('session records backfilled', done),
          (err: unknown) =>
            logger.warn('session backfill stopped; it runs again at the next start', { err: String(err) }),
        );
        return { name: 'session backfill', stop: () => undefined };
      },
    ],
  });
}

startMain('agent', main);
