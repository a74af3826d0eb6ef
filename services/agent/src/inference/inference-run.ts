import { isUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';

import type { AgentService } from '../agents/agent.service';
import type { AgentRecord } from '../agents/agent.types';
import type { CredentialService } from '../credentials/credential.service';
import type { AgentToolboxes, Toolbox } from '../tools/agent-toolbox';
import { withCallerTools } from './caller-tools';
import type { FeaturePipeline, FeatureRun } from './features/feature-pipeline';
import type {
  CallSettings,
  ChatInput,
  InferenceContext,
  ModelMessage,
  ModelReply,
  Owner,
  ToolCallRecord,
  TurnResult,
} from './inference.types';
import type { MemoryRepository } from './memory.repository';
import { targetFor, type ModelTarget } from './model-target';
import type { ProviderClient } from './providers/provider-client';
import type { ModelRequest } from './providers/provider.types';
import { composeSystemPrompt } from './system-prompt';
import { DEFAULT_MAX_ITERATIONS, runToolLoop } from './tool-loop';

export type { ModelTarget } from './model-target';

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

/** One inference call after its features' beforeModel hooks ran. */
export interface PreparedRun {
  agent: AgentRecord;
  to: ModelTarget;
  run: FeatureRun;
  ctx: InferenceContext;
  startedAt: Date;
  /** The caller's settings over the agent's for this call (chat completions); none on chat. */
  call?: CallSettings;
  /** The run's toolbox, built before the features when the caller brings functions (their names are checked first). */
  toolbox?: Toolbox;
}

/** The agent's tools: its `tools` list, and a single-task agent's `tool`. */
export const toolRefs = (agent: AgentRecord) => [...(agent.tools ?? []), ...(agent.tool ? [agent.tool] : [])];

/** The agent's model params with the caller's `max_tokens`, which cannot exceed the agent's own when it sets one. */
function paramsWith(params: Record<string, unknown>, maxTokens: number | undefined): Record<string, unknown> {
  if (maxTokens === undefined) return params;
  const own = params.max_tokens;
  return { ...params, max_tokens: typeof own === 'number' && own > 0 ? Math.min(own, maxTokens) : maxTokens };
}

/** What the caller sent beside the message, as the features see it (RAI checks it, MEMORY defers to its turns). */
const suppliedOf = (call: CallSettings): NonNullable<InferenceContext['supplied']> => ({
  system: call.system,
  turns: call.turns,
  ...(call.continuation?.length ? { continuation: call.continuation } : {}),
});

/** The system prompt of the call: the agent's (with what features added), then the caller's system messages. */
const systemOf = (ctx: InferenceContext) => [ctx.system, ...(ctx.supplied?.system ?? [])].filter(Boolean).join('\n\n');

/** The turn as the OpenAI-protocol route reports it, from a run whose reply is set. */
export function turnResult(p: PreparedRun): TurnResult {
  const { text, usage, toolCalls, truncated } = p.ctx.reply!;
  const handed = toolCalls?.length ? { toolCalls } : {};
  return {
    text,
    usage,
    sessionId: p.ctx.sessionId,
    agentId: String(p.agent.id),
    model: p.to.model,
    ...handed,
    finishReason: toolCalls?.length ? 'tool_calls' : truncated ? 'length' : 'stop',
  };
}

/** Stores the turn; the model has been paid for, so a database gone away meanwhile is logged, not thrown. */
async function storeTurn(
  deps: Pick<InferenceServiceDeps, 'memory' | 'logger'>,
  ctx: InferenceContext,
  reply: ModelReply,
  call: { providerId: string; model: string; toolCalls: ToolCallRecord[] },
  startedAt: Date,
  finishedAt: Date,
) {
  try {
    await deps.memory.appendTurn(ctx.owner, {
      agentId: ctx.agent.id,
      sessionId: ctx.sessionId,
      message: ctx.message,
      reply: reply.text,
      startedAt,
      finishedAt,
      usage: reply.usage,
      providerId: call.providerId,
      model: call.model,
      toolCalls: call.toolCalls,
      findings: ctx.findings ?? [],
    });
  } catch (err) {
    if (!isUnavailableError(err)) throw err;
    deps.logger.error('turn not stored: database unreachable; answering without it', {
      agent_id: ctx.agent.id,
      session_id: ctx.sessionId,
      err: (err as Error).message,
    });
  }
}

/**
 * The model request of this turn: system, history and message (and any tool rounds), the agent's settings. The
 * caller's `tool_choice` applies to the turn's first model call only (`first`), so that a loop can end.
 */
function request(p: PreparedRun, messages: ModelMessage[], toolbox?: Toolbox, first = false): ModelRequest {
  const { agent, ctx, call } = p;
  return {
    model: p.to.model,
    system: systemOf(ctx),
    messages,
    tools: toolbox?.functions,
    ...(first && call?.toolChoice && toolbox?.functions.length ? { toolChoice: call.toolChoice } : {}),
    temperature: call?.temperature ?? agent.temperature,
    top_p: call?.top_p ?? agent.top_p,
    response_format: agent.response_format,
    params: paramsWith(agent.additional_model_params ?? {}, call?.max_tokens),
  };
}

/** The first messages of the turn: history, the new user message, then the caller's tool rounds of this turn. */
const initial = (ctx: InferenceContext): ModelMessage[] => [
  ...ctx.history,
  { role: 'user', content: ctx.message },
  ...(ctx.supplied?.continuation ?? []),
];

/** What chat and stream share: the agent's target, its features before the model, the model request, the stored turn. */
export function createInferenceRun(deps: InferenceServiceDeps) {
  return {
    request,
    initial,
    /** Agent, target and features before the model (MEMORY fills history, RAI checks the message). */
    async prepare(owner: Owner, input: ChatInput): Promise<PreparedRun> {
      const startedAt = deps.clock();
      const agent = await deps.agents.get(owner, String(input.agent_id));
      const to = await targetFor(deps.credentials, owner, agent);
      // The caller's functions are part of the request: a name the agent's tools have is refused (422) before any
      // feature runs (RAI calls, memory reads) and whatever the features would answer.
      const toolbox = input.call?.tools?.length
        ? withCallerTools(await deps.toolboxes.forAgent(owner, toolRefs(agent)), input.call.tools)
        : undefined;
      const run = deps.features.plan(agent);
      const ctx: InferenceContext = {
        owner,
        agent,
        sessionId: input.session_id,
        message: input.message,
        system: composeSystemPrompt(agent, input.system_prompt_variables),
        history: input.call ? [...input.call.turns] : [],
        ...(input.call ? { supplied: suppliedOf(input.call) } : {}),
      };
      await run.beforeModel(ctx);
      return { agent, to, run, ctx, startedAt, call: input.call, ...(toolbox ? { toolbox } : {}) };
    },

    /** The agent's tools, with the caller's own functions beside them (chat completions' `tools`). */
    async toolbox(owner: Owner, p: PreparedRun): Promise<Toolbox> {
      return p.toolbox ?? deps.toolboxes.forAgent(owner, toolRefs(p.agent));
    },

    /** The provider call with the agent's tools, looping over tool calls (non-streaming). */
    async askModel(p: PreparedRun, toolbox: Toolbox) {
      const ask = (messages: ModelMessage[], iteration: number) =>
        deps.providers.complete(p.to.adapter, p.to.target, request(p, messages, toolbox, iteration === 1));
      const handOver = new Set((p.call?.tools ?? []).map((t) => t.name));
      return runToolLoop(ask, toolbox, initial(p.ctx), p.agent.max_iterations ?? DEFAULT_MAX_ITERATIONS, handOver);
    },

    /** Stores the turn (unless the agent opts out with store_messages: false) and logs it, without its text. */
    async record(p: PreparedRun, toolCalls: ToolCallRecord[], mode: 'chat' | 'stream') {
      const { ctx, run, startedAt } = p;
      const reply = ctx.reply!;
      const call = { providerId: p.to.target.providerId, model: p.to.model, toolCalls };
      const finishedAt = deps.clock();
      // A reply that hands tool calls to the caller is not an answer yet: the turn is stored when the caller continues.
      const answered = !reply.toolCalls?.length;
      if (answered && ctx.agent.store_messages !== false)
        await storeTurn(deps, ctx, reply, call, startedAt, finishedAt);
      deps.logger.info('inference completed', {
        agent_id: ctx.agent.id,
        session_id: ctx.sessionId,
        mode,
        provider: call.providerId,
        model: call.model,
        features: run.types,
        history_messages: ctx.history.length,
        duration_ms: finishedAt.getTime() - startedAt.getTime(),
        usage: reply.usage,
        tool_calls: toolCalls.length,
        ...(answered ? {} : { handed_over_calls: reply.toolCalls!.length }),
      });
    },
  };
}

export type InferenceRun = ReturnType<typeof createInferenceRun>;
