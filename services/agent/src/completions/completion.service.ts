import { randomUUID } from 'node:crypto';

import { ValidationError } from '@platform/errors';

import type { StreamingInference } from '../inference/inference-stream.service';
import type { InferenceService } from '../inference/inference.service';
import type { CallSettings, ChatInput, ChatMessage, Owner, TurnResult, Usage } from '../inference/inference.types';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  CompletionBody,
  CompletionMessage,
} from './completion.schemas.types';

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

/** A message's text: the string, or its text parts joined by a newline; null is empty. */
const textOf = (content: CompletionMessage['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => p.text).join('\n');

/** The smaller of the two token bounds sent, if any. */
function maxTokensOf(body: CompletionBody): number | undefined {
  const bounds = [body.max_tokens, body.max_completion_tokens].filter((n): n is number => typeof n === 'number');
  return bounds.length > 0 ? Math.min(...bounds) : undefined;
}

/**
 * The turn in our chat's terms. The last message is the turn's message (a user message, else 422); earlier system
 * and developer messages are extra system instructions, earlier user and assistant messages the history, both for
 * this call only.
 */
export function callOf(body: CompletionBody): { message: string; call: CallSettings } {
  const last = body.messages.length - 1;
  if (body.messages[last]!.role !== 'user') {
    throw ValidationError.field(
      ['body', 'messages', last, 'role'],
      'The last message must be a user message: it is the turn the agent answers',
      'last_message_not_user',
    );
  }
  const system: string[] = [];
  const turns: ChatMessage[] = [];
  for (const m of body.messages.slice(0, last)) {
    if (m.role === 'system' || m.role === 'developer') system.push(textOf(m.content));
    else turns.push({ role: m.role, content: textOf(m.content) });
  }
  const call: CallSettings = { system, turns };
  if (typeof body.temperature === 'number') call.temperature = body.temperature;
  if (typeof body.top_p === 'number') call.top_p = body.top_p;
  const maxTokens = maxTokensOf(body);
  if (maxTokens !== undefined) call.max_tokens = maxTokens;
  return { message: textOf(body.messages[last]!.content), call };
}

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
            message: { role: 'assistant', content: turn.text, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: turn.usage ?? NO_USAGE,
        session_id: turn.sessionId,
      };
    },

    /**
     * The answer as `chat.completion.chunk`s: the first delta carries the role, then one chunk per delta, a chunk
     * with `finish_reason: "stop"`, and with `include_usage` a last chunk with no choices and the usage (every
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
      const choice = (delta: ChatCompletionChunk['choices'][number]['delta'], finish: 'stop' | null = null) => [
        { index: 0, delta, logprobs: null, finish_reason: finish },
      ];
      let started = false;
      const turn = await deps.streaming.stream(
        owner,
        call.input,
        {
          begin(t) {
            model = call.model ?? t.model;
          },
          delta(text) {
            if (!started) out.chunk(chunk(choice({ role: 'assistant', content: '' })));
            started = true;
            out.chunk(chunk(choice({ content: text })));
          },
        },
        signal,
      );
      if (!started) out.chunk(chunk(choice({ role: 'assistant', content: '' })));
      out.chunk(chunk(choice({}, 'stop')));
      if (includeUsage) out.chunk(chunk([], turn.usage ?? NO_USAGE));
    },
  };
}

export type CompletionService = ReturnType<typeof createCompletionService>;
