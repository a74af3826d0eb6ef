import { inSpan } from '@platform/tracing';

import { createInferenceRun, turnResult, type InferenceServiceDeps } from './inference-run';
import type { ChatInput, Owner, ToolCall, ToolCallRecord, TurnResult } from './inference.types';
import type { ProviderStreamer } from './providers/provider-stream';

export interface StreamingInferenceDeps extends InferenceServiceDeps {
  streamer: ProviderStreamer;
}

/** Where the answer goes as it is produced. */
export interface AnswerSink {
  /** Once the run is prepared, before any delta: which model and session it runs on (nothing is sent yet). */
  begin?(turn: Pick<TurnResult, 'model' | 'sessionId' | 'agentId'>): void;
  /** One piece of the answer, in order. */
  delta(text: string): void;
  /**
   * Instead of an answer: calls of the caller's own functions (chat completions' `tools`) the model asks for, with
   * any text it wrote beside them. Only a caller that offers functions gets this.
   */
  toolCalls?(calls: ToolCall[], text: string): void;
}

/**
 * Chat with the answer streamed (POST /v3/inference/stream/). Everything that can fail before the model answers
 * (agent, credential, features before the model, tool rounds, the provider's status) fails before the first
 * delta, so the route still answers it as JSON.
 *
 * - An agent without tools: one streamed provider call, each delta passed on as it arrives.
 * - An agent with tools: the tool loop runs (non-streaming) until the model answers without asking for tools; that
 *   answer is passed on as one delta.
 * - With the RAI feature the answer is checked (and redacted) before any of it is sent: the streamed deltas are
 *   collected, checked, and the checked answer is passed on as one delta.
 * - A blocked input: the refusal, as one delta.
 * - The caller's own functions are offered (chat completions): the tool loop runs as with the agent's tools; a reply
 *   asking for the caller's functions goes to `toolCalls` instead of an answer (not checked by RAI, not stored).
 * The turn is stored after the whole answer, before the stream ends; the whole turn (its usage) is returned.
 */
export function createStreamingInference(deps: StreamingInferenceDeps) {
  const runs = createInferenceRun(deps);
  return {
    stream(owner: Owner, input: ChatInput, sink: AnswerSink, signal: AbortSignal): Promise<TurnResult> {
      const attributes = { 'agent.id': String(input.agent_id), 'agent.mode': 'stream' };
      return inSpan('agent run', { attributes }, () => streamTurn(owner, input, sink, signal));
    },
  };

  async function streamTurn(
    owner: Owner,
    input: ChatInput,
    sink: AnswerSink,
    signal: AbortSignal,
  ): Promise<TurnResult> {
    const p = await runs.prepare(owner, input);
    const { ctx, run } = p;
    const turn = { model: p.to.model, sessionId: ctx.sessionId, agentId: String(p.agent.id) };
    sink.begin?.(turn);
    let toolCalls: ToolCallRecord[] = [];
    let sent = false;
    if (!ctx.reply) {
      const toolbox = await runs.toolbox(owner, p);
      if (toolbox.functions.length > 0) {
        const result = await runs.askModel(p, toolbox);
        ctx.reply = result.reply;
        toolCalls = result.toolCalls;
      } else {
        const live = !run.types.includes('RAI');
        const onText = (text: string) => {
          if (live) sink.delta(text);
        };
        ctx.reply = await deps.streamer.stream(p.to.adapter, p.to.target, runs.request(p, runs.initial(ctx)), {
          signal,
          onText,
        });
        sent = live;
      }
    }
    const handed = ctx.reply.toolCalls;
    if (handed?.length) sink.toolCalls?.(handed, ctx.reply.text);
    else {
      await run.afterModel(ctx);
      if (!sent) sink.delta(ctx.reply.text);
    }
    await runs.record(p, toolCalls, 'stream');
    return turnResult(p);
  }
}

export type StreamingInference = ReturnType<typeof createStreamingInference>;
