import { isUnavailableError, ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { AgentService } from '../agents/agent.service';
import type { AgentRecord } from '../agents/agent.types';
import type { CredentialService } from '../credentials/credential.service';
import type { AgentToolboxes } from '../tools/agent-toolbox';
import type { FeaturePipeline, FeatureRun } from './features/feature-pipeline';
import type { ChatInput, ChatResult, InferenceContext, ModelMessage, ModelReply, Owner, ToolCallRecord } from './inference.types';
import type { MemoryRepository } from './memory.repository';
import type { ProviderClient } from './providers/provider-client';
import { findProvider, SUPPORTED_PROVIDER_IDS } from './providers/provider-registry';
import type { ProviderAdapter, ProviderTarget } from './providers/provider.types';
import { composeSystemPrompt } from './system-prompt';
import { DEFAULT_MAX_ITERATIONS, runToolLoop } from './tool-loop';

export interface InferenceServiceDeps {
  agents: AgentService;
  credentials: CredentialService;
  memory: MemoryRepository;
  features: FeaturePipeline;
  providers: ProviderClient;
  toolboxes: AgentToolboxes;
  clock: () => Date;
  logger: Logger;
}

/** 422 on the body's agent_id: the agent exists but cannot run as configured. */
const unusable = (msg: string, type: string) => ValidationError.field(['body', 'agent_id'], msg, type);

/**
 * Runs agents: agent and credential → features before the model → provider call → features after → stored turn.
 */
export function createInferenceService(deps: InferenceServiceDeps) {
  /** Which protocol, where and with which key: from the agent's provider_id, model and llm_credential_id. */
  async function targetFor(owner: Owner, agent: AgentRecord): Promise<{ adapter: ProviderAdapter; target: ProviderTarget; model: string }> {
    const credentialId = agent.llm_credential_id;
    if (!credentialId) {
      throw unusable(`Agent ${agent.id} has no llm_credential_id: store a provider credential and set its id on the agent`, 'credential_missing');
    }
    const credential = await deps.credentials.open(owner, credentialId);
    if (!credential) throw unusable(`Credential ${credentialId} of agent ${agent.id} not found`, 'credential_not_found');
    const providerId = agent.provider_id ?? credential.provider_id;
    const provider = findProvider(providerId);
    if (!provider) {
      throw unusable(`Provider "${providerId}" of agent ${agent.id} is not supported; use one of: ${SUPPORTED_PROVIDER_IDS.join(', ')}`, 'provider_unsupported');
    }
    if (!agent.model) throw unusable(`Agent ${agent.id} has no model`, 'model_missing');
    const baseUrl = credential.base_url ?? provider.defaultBaseUrl;
    if (!baseUrl) {
      throw unusable(`Provider ${provider.id} needs a base_url on credential ${credentialId} (its server's address, e.g. http://host:8000/v1)`, 'base_url_missing');
    }
    return { adapter: provider.adapter, target: { providerId: provider.id, baseUrl, apiKey: credential.api_key }, model: agent.model };
  }

  /**
   * Stores the turn (unless the agent opts out with store_messages: false) and logs it, without its text. The model
   * has answered by now (and been paid for): if the database has gone away meanwhile, the caller still gets the
   * answer and the turn is missing from memory (logged as an error), rather than a 503 that would make a caller
   * retry and call the model again.
   */
  async function record(ctx: InferenceContext, reply: ModelReply, call: { providerId: string; model: string; toolCalls: ToolCallRecord[] }, startedAt: Date, run: FeatureRun) {
    const { providerId, model, toolCalls } = call;
    const finishedAt = deps.clock();
    if (ctx.agent.store_messages !== false) {
      await storeTurn(ctx, reply, call, startedAt, finishedAt);
    }
    deps.logger.info('inference completed', {
      agent_id: ctx.agent.id,
      session_id: ctx.sessionId,
      provider: providerId,
      model,
      features: run.types,
      history_messages: ctx.history.length,
      duration_ms: finishedAt.getTime() - startedAt.getTime(),
      usage: reply.usage,
      tool_calls: toolCalls.length,
    });
  }

  async function storeTurn(ctx: InferenceContext, reply: ModelReply, call: { providerId: string; model: string; toolCalls: ToolCallRecord[] }, startedAt: Date, finishedAt: Date) {
    const { providerId, model, toolCalls } = call;
    try {
      await deps.memory.appendTurn(ctx.owner, {
        agentId: ctx.agent.id,
        sessionId: ctx.sessionId,
        message: ctx.message,
        reply: reply.text,
        startedAt,
        finishedAt,
        usage: reply.usage,
        providerId,
        model,
        toolCalls,
        findings: ctx.findings ?? [],
      });
    } catch (err) {
      if (!isUnavailableError(err)) throw err;
      deps.logger.error('turn not stored: database unreachable; answering without it', { agent_id: ctx.agent.id, session_id: ctx.sessionId, err: (err as Error).message });
    }
  }

  /** The agent's tools: its `tools` list, and a single-task agent's `tool`. */
  const toolRefs = (agent: AgentRecord) => [...(agent.tools ?? []), ...(agent.tool ? [agent.tool] : [])];

  /** The provider call with the agent's tools, looping over tool calls. */
  async function askModel(owner: Owner, agent: AgentRecord, ctx: InferenceContext, to: { adapter: ProviderAdapter; target: ProviderTarget; model: string }) {
    const toolbox = await deps.toolboxes.forAgent(owner, toolRefs(agent));
    const ask = (messages: ModelMessage[]) =>
      deps.providers.complete(to.adapter, to.target, {
        model: to.model,
        system: ctx.system,
        messages,
        tools: toolbox.functions,
        temperature: agent.temperature,
        top_p: agent.top_p,
        response_format: agent.response_format,
        params: agent.additional_model_params ?? {},
      });
    const initial: ModelMessage[] = [...ctx.history, { role: 'user', content: ctx.message }];
    return runToolLoop(ask, toolbox, initial, agent.max_iterations ?? DEFAULT_MAX_ITERATIONS);
  }

  return {
    async chat(owner: Owner, input: ChatInput): Promise<ChatResult> {
      const startedAt = deps.clock();
      const agent = await deps.agents.get(owner, String(input.agent_id));
      const { adapter, target, model } = await targetFor(owner, agent);
      const run = deps.features.plan(agent);
      const ctx: InferenceContext = {
        owner,
        agent,
        sessionId: input.session_id,
        message: input.message,
        system: composeSystemPrompt(agent, input.system_prompt_variables),
        history: [],
      };
      await run.beforeModel(ctx);
      // A feature that answered already (a blocked input) leaves the model uncalled.
      const result = ctx.reply ? { reply: ctx.reply, toolCalls: [] } : await askModel(owner, agent, ctx, { adapter, target, model });
      ctx.reply = result.reply;
      await run.afterModel(ctx);
      await record(ctx, ctx.reply, { providerId: target.providerId, model, toolCalls: result.toolCalls }, startedAt, run);
      return { response: ctx.reply.text, session_id: ctx.sessionId, agent_id: String(agent.id) };
    },

    /** The owner's stored messages of a session, newest first. Another owner's session is simply empty. */
    messages(owner: Owner, sessionId: string, page: { skip: number; limit: number; agent_id?: string }) {
      const agentId = page.agent_id === undefined ? undefined : Number(page.agent_id);
      return deps.memory.list(owner, sessionId, { skip: page.skip, limit: page.limit, agentId });
    },
  };
}

export type InferenceService = ReturnType<typeof createInferenceService>;
