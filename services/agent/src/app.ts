import { Router, type Express } from 'express';

import { withBearerKey, withOnBehalfOf, type ApiKeyAuth } from '@platform/auth';
import type { Connection } from '@platform/db';
import { createHttpApp, mountRoutes, type ReadinessCheck } from '@platform/http';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createReadCache, localChangeBusOf, type ChangeBus, type LimitPublisher } from '@platform/queue';
import type { SecretBox } from '@platform/secrets';

import { withAgentCache } from './agents/agent.cache';
import { createAgentRepository } from './agents/agent.repository';
import { agentRoutes } from './agents/agent.routes';
import { createAgentService } from './agents/agent.service';
import { openAiError } from './completions/completion.errors';
import { completionRoutes, isCompletionsRequest } from './completions/completion.routes';
import { createCompletionService } from './completions/completion.service';
import { withCredentialCache } from './credentials/credential.cache';
import { createCredentialRepository } from './credentials/credential.repository';
import { credentialRoutes } from './credentials/credential.routes';
import { createCredentialService } from './credentials/credential.service';
import { createFeaturePipeline } from './inference/features/feature-pipeline';
import {
  createKnowledgeClient,
  knowledgeBaseFeature,
  type KnowledgeTarget,
} from './inference/features/knowledge-base.feature';
import { memoryFeature } from './inference/features/memory.feature';
import { createStreamingInference } from './inference/inference-stream.service';
import { inferenceRoutes } from './inference/inference.routes';
import { createInferenceService } from './inference/inference.service';
import { createMemoryRepository } from './inference/memory.repository';
import { createProviderClient } from './inference/providers/provider-client';
import { createProviderStreamer } from './inference/providers/provider-stream';
import { openapi } from './openapi';
import { createRaiClient } from './rai/rai.client';
import { raiFeature } from './rai/rai.feature';
import type { RaiTarget } from './rai/rai.types';
import { withKnownSessions } from './sessions/session.cache';
import { createSessionRepository } from './sessions/session.repository';
import { sessionRoutes } from './sessions/session.routes';
import { createSessionService } from './sessions/session.service';
import { withSessionRecords } from './sessions/session.turns';
import { createTaskRepository } from './tasks/task.repository';
import { taskRoutes } from './tasks/task.routes';
import { createTaskService } from './tasks/task.service';
import type { TaskQueue } from './tasks/task.types';
import { createAgentToolboxes } from './tools/agent-toolbox';
import { createDescriptionEnhancer } from './tools/description-enhancer';
import { createToolExecutor, DEFAULT_TOOL_TIMEOUT_MS } from './tools/tool-executor';
import { createToolRepository } from './tools/tool.repository';
import { toolRoutes } from './tools/tool.routes';
import { createToolService } from './tools/tool.service';

export interface AppDeps {
  logger: Logger;
  /** The agent service's database. */
  db: Connection;
  auth: ApiKeyAuth;
  /** Seals provider credentials at rest. */
  box: SecretBox;
  /** Every call to an LLM provider goes through it (address guard, time limit, size cap). */
  outbound: OutboundClient;
  readiness: Record<string, ReadinessCheck>;
  /** Time limit of one inference's provider call, retries included (default 60 s). */
  providerTimeoutMs?: number;
  /** Time limit of one tool call to a remote API (default 30 s). */
  toolTimeoutMs?: number;
  /** Where `enhance_descriptions` asks for better descriptions: an OpenAI-protocol base URL and model. */
  toolEnhancer?: { baseUrl: string; model: string };
  /** Secret of the internal on-behalf-of path (the worker); unset disables that path. */
  internalSecret?: string | null;
  /** The RAI service that the RAI feature asks; unset: agents with that feature fail closed (503). */
  rai?: RaiTarget;
  /**
   * The rag service that the KNOWLEDGE_BASE feature asks for retrieved knowledge, and that saving an agent with that
   * feature asks whether its rag ids are the owner's; unset: such saves and chats answer 503.
   */
  knowledge?: KnowledgeTarget;
  /** Where inference tasks go (the worker's queue); unset: POST /v3/inference/task/ answers 503. */
  taskQueue?: TaskQueue;
  /** Announces agent and credential edits to every replica (their run caches drop the object); in-process by default. */
  changes?: ChangeBus;
  /** Publishes agents' `max_concurrency` for the worker (contract §8); unset: not published. */
  agentLimits?: LimitPublisher;
  /**
   * How long a replica uses a cached agent or credential if a change message is lost, and remembers that a session
   * has its record (default 5000 ms; 0: no cache).
   */
  cacheTtlMs?: number;
  clock?: () => Date;
  /** Waits between provider retries. */
  sleep?: (ms: number) => Promise<void>;
  jsonLimit?: string;
}

const DEFAULT_ENHANCER = { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' };

/** Tool sets: imports, the remote calls they make and the optional description enhancer. */
function toolServiceFor(deps: AppDeps, clock: () => Date) {
  return createToolService({
    repo: createToolRepository(deps.db),
    box: deps.box,
    executor: createToolExecutor({ outbound: deps.outbound, timeoutMs: deps.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS }),
    enhancer: createDescriptionEnhancer({
      outbound: deps.outbound,
      baseUrl: deps.toolEnhancer?.baseUrl ?? DEFAULT_ENHANCER.baseUrl,
      model: deps.toolEnhancer?.model ?? DEFAULT_ENHANCER.model,
      timeoutMs: deps.providerTimeoutMs ?? 60_000,
      logger: deps.logger,
    }),
    clock,
    logger: deps.logger,
  });
}

/** Most agents and credentials a replica keeps for runs (each); the oldest goes first. */
const RUN_CACHE_MAX = 10_000;

/**
 * The agent and credential repositories with the reads of every run cached (a run then reads neither), their
 * edits announced on the deps' bus; the session repository with the records its turns made sure of remembered.
 */
function runCachedRepositories(deps: AppDeps) {
  const options = { ttlMs: deps.cacheTtlMs ?? 5_000, max: RUN_CACHE_MAX, bus: deps.changes ?? localChangeBusOf(deps) }; // apps given no bus share one per deps
  return {
    agents: withAgentCache(createAgentRepository(deps.db), createReadCache({ ...options, name: 'agent' })),
    credentials: withCredentialCache(
      createCredentialRepository(deps.db),
      createReadCache({ ...options, name: 'credential' }),
    ),
    sessions: withKnownSessions(createSessionRepository(deps.db), createReadCache({ ...options, name: 'session' })),
  };
}

/** Assembles the agent service. Pure: every connection arrives in `deps`. */
export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const repos = runCachedRepositories(deps);
  const knowledge = createKnowledgeClient({ outbound: deps.outbound, target: deps.knowledge, logger: deps.logger });
  const agents = createAgentService({ repo: repos.agents, knowledgeBases: knowledge, clock, limits: deps.agentLimits });
  const credentials = createCredentialService({ repo: repos.credentials, box: deps.box, clock });
  const memory = withSessionRecords(createMemoryRepository(deps.db), repos.sessions, deps.logger);
  const tools = toolServiceFor(deps, clock);
  const inferenceDeps = {
    agents,
    credentials,
    memory,
    features: createFeaturePipeline(
      [
        memoryFeature(memory),
        raiFeature(createRaiClient({ outbound: deps.outbound, target: deps.rai, logger: deps.logger })),
        knowledgeBaseFeature(knowledge),
      ],
      deps.logger,
    ),
    providers: createProviderClient({
      outbound: deps.outbound,
      timeoutMs: deps.providerTimeoutMs ?? 60_000,
      logger: deps.logger,
      sleep: deps.sleep,
    }),
    toolboxes: createAgentToolboxes({ tools, logger: deps.logger }),
    clock,
    logger: deps.logger,
  };
  const inference = createInferenceService(inferenceDeps);
  const streamer = createProviderStreamer({
    outbound: deps.outbound,
    timeoutMs: deps.providerTimeoutMs ?? 60_000,
    logger: deps.logger,
  });
  const streaming = createStreamingInference({ ...inferenceDeps, streamer });
  const tasks = createTaskService({
    repo: createTaskRepository(deps.db),
    queue: deps.taskQueue,
    chat: (owner, input) => inference.chat(owner, input),
    checkAgent: (owner, agentId) => agents.get(owner, agentId),
    clock,
    logger: deps.logger,
  });

  const sessions = createSessionService({
    repo: repos.sessions,
    memory,
    agentOf: (owner, agentId) => agents.get(owner, agentId),
    clock,
  });

  const routes = Router();
  // Runs first: every run the worker asks for comes here, and a request tries each router's routes in turn.
  routes.use(mountRoutes(inferenceRoutes, { service: inference, streaming, logger: deps.logger }));
  routes.use(mountRoutes(agentRoutes, agents));
  routes.use(mountRoutes(credentialRoutes, credentials));
  const completions = createCompletionService({ inference, streaming, clock });
  routes.use(mountRoutes(completionRoutes, { service: completions, logger: deps.logger }));
  routes.use(mountRoutes(taskRoutes, tasks));
  routes.use(mountRoutes(toolRoutes, tools));
  routes.use(mountRoutes(sessionRoutes, sessions));

  const keyOrInternal = withOnBehalfOf({ apiKey: deps.auth.middleware, secret: deps.internalSecret });
  // OpenAI-protocol clients send their key as `Authorization: Bearer`: taken on the chat-completions route only.
  const auth = withBearerKey(keyOrInternal, isCompletionsRequest);
  return createHttpApp({
    service: 'agent',
    // OpenAI-protocol clients read the reason of an error from OpenAI's `error` object: it goes beside `detail`.
    errorExtras: (req, e) => (isCompletionsRequest(req) ? { error: openAiError(e) } : undefined),
    logger: deps.logger,
    routes,
    protect: { paths: ['/v3'], middleware: auth },
    readiness: deps.readiness,
    openapi,
    jsonLimit: deps.jsonLimit,
  }).app;
}
