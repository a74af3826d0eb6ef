import { randomUUID } from 'node:crypto';

import type { StreamingInference } from '../inference/inference-stream.service';
import type { InferenceService } from '../inference/inference.service';
import type { ChatInput, Owner, TurnResult, Usage } from '../inference/inference.types';
import { callOf, wireCall } from './completion.messages';
import type { ChatCompletion, ChatCompletionChunk, CompletionBody } from './completion.schemas.types';

export interface CompletionServiceDeps {
  inference: Pick<InferenceService, 'complete'>;
  streaming: Pick<StreamingInference, 'stream'>;
  clock: () => Date;
  /** The completion id (`chatcmpl-` + 32 hex by default). */
  newId?: () => string;
}

/** Where a streamed answer's chunks go, in order. */
export interface ChunkSink {
  chunk(c: ChatCompletionChunk): void;
}

/** One call as the route hands it over: the agent, the validated body and the session header. */
export interface CompletionRequest {
  agentId: string;
  body: CompletionBody;
  /** The `x-session-id` header, when sent. */
  sessionHeader?: string;
}

const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * OpenAI's chat-completions protocol over an agent (POST /v3/inference/{agent_id}/chat/completions): the request
 * becomes a chat turn (`callOf`) run by the same inference as /v3/inference/chat/ and /stream/ — the agent's model,
 * tools, features (MEMORY, RAI, KNOWLEDGE_BASE) and stored turns — and the answer is told in OpenAI's shapes.
 */
export function createCompletionService(deps: CompletionServiceDeps) {
  const newId = deps.newId ?? (() => `chatcmpl-${randomUUID().replace(/-/g, '')}`);

  /** The chat input of a call, with its id, time and session (body, header, else the completion id). */
  function prepare(req: CompletionRequest) {
    const id = newId();
    const created = Math.floor(deps.clock().getTime() / 1000);
    const sessionId = req.body.session_id ?? req.sessionHeader ?? id;
    const { message, call } = callOf(req.body);
    const input: ChatInput = {
      agent_id: req.agentId,
      session_id: sessionId,
      message,
      system_prompt_variables: req.body.system_prompt_variables as ChatInput['system_prompt_variables'],
      call,
    };
    const includeUsage = req.body.stream_options?.include_usage === true;
    return { id, created, sessionId, input, model: req.body.model || undefined, includeUsage };
  }

  type PreparedCall = ReturnType<typeof prepare>;

  return {
    /** The session a call will use, known before it runs (the route sends it as a header). */
    prepare,

    /** The whole answer as one `chat.completion`. */
    async complete(owner: Owner, call: PreparedCall): Promise<ChatCompletion> {
      const turn: TurnResult = await deps.inference.complete(owner, call.input);
      return {
        id: call.id,
        object: 'chat.completion',
        created: call.created,
        model: call.model ?? turn.model,
        choices: [
          {
            index: 0,
            message: turn.toolCalls
              ? {
                  role: 'assistant',
                  content: turn.text || null,
                  refusal: null,
                  tool_calls: turn.toolCalls.map(wireCall),
                }
              : { role: 'assistant', content: turn.text, refusal: null },
            logprobs: null,
            finish_reason: turn.finishReason,
          },
        ],
        usage: turn.usage ?? NO_USAGE,
        session_id: turn.sessionId,
      };
    },

    /**
     * The answer as `chat.completion.chunk`s: the first delta carries the role, then one chunk per delta (or one
     * chunk with every call of the caller's functions the model asks for), a chunk with the `finish_reason`, and with
     * `include_usage` a last chunk with no choices and the usage (every
     * chunk before it has `usage: null`). Nothing is sent before the first delta, so a failure before it is still
     * answered with its status; the route ends the stream with `data: [DONE]`.
     */
    async stream(owner: Owner, call: PreparedCall, out: ChunkSink, signal: AbortSignal): Promise<void> {
      const { includeUsage } = call;
      let model = call.model ?? '';
      const chunk = (choices: ChatCompletionChunk['choices'], usage?: Usage | null): ChatCompletionChunk => ({
        id: call.id,
        object: 'chat.completion.chunk',
        created: call.created,
        model,
        choices,
        ...(includeUsage ? { usage: usage ?? null } : {}),
      });
      type Choice = ChatCompletionChunk['choices'][number];
      const choice = (delta: Choice['delta'], finish: Choice['finish_reason'] = null) => [
        { index: 0, delta, logprobs: null, finish_reason: finish },
      ];
      let started = false;
      const start = () => {
        if (!started) out.chunk(chunk(choice({ role: 'assistant', content: '' })));
        started = true;
      };
      const turn = await deps.streaming.stream(
        owner,
        call.input,
        {
          begin(t) {
            model = call.model ?? t.model;
          },
          delta(text) {
            start();
            out.chunk(chunk(choice({ content: text })));
          },
          toolCalls(calls, text) {
            start();
            if (text) out.chunk(chunk(choice({ content: text })));
            out.chunk(chunk(choice({ tool_calls: calls.map((c, index) => ({ index, ...wireCall(c) })) })));
          },
        },
        signal,
      );
      start();
      out.chunk(chunk(choice({}, turn.finishReason)));
      if (includeUsage) out.chunk(chunk([], turn.usage ?? NO_USAGE));
    },
  };
}

export type CompletionService = ReturnType<typeof createCompletionService>;
