import type { Request } from 'express';

import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';
import type { Logger } from '@platform/logger';

import { RUN_ERRORS } from '../inference/inference.routes';
import { createSseWriter } from '../inference/sse-writer';
import {
  chatCompletion,
  completionBody,
  completionHeaders,
  completionPath,
  MAX_COMPLETION_MESSAGES,
  MAX_CONTENT_CHARS,
  MAX_CONTENT_PARTS,
  MAX_MESSAGE_TOOL_CALLS,
  MAX_REQUEST_TOOLS,
} from './completion.schemas';
import type { CompletionService } from './completion.service';

/** The route's path, for the auth that also takes `Authorization: Bearer <key>` on it (what the openai SDKs send). */
export const COMPLETIONS_PATH = /^\/v3\/inference\/[^/]+\/chat\/completions\/?$/;

/** True for a request to the chat-completions route (wherever the router that sees it is mounted). */
export const isCompletionsRequest = (req: Request): boolean => COMPLETIONS_PATH.test(req.baseUrl + req.path);

/** What the chat-completions route needs. */
export interface CompletionRouteDeps {
  service: CompletionService;
  logger: Logger;
}

const completionsDescription = [
  "OpenAI's chat-completions protocol over one of the caller's agents, so that the `openai` SDKs work with base URL `<host>/v3/inference/<agent_id>` and an API key as their key: the key is taken as `x-api-key` or `Authorization: Bearer <key>` (this route only). The agent decides its model (the request's `model` is echoed), prompt, tools and features (MEMORY, RAI, KNOWLEDGE_BASE), as on /v3/inference/chat/.",
  "Messages: the last user message is the turn's message; after it only the turn's tool rounds may follow (assistant messages with tool_calls, tool messages of their results), so the last message is a user or a tool message (else 422 at its role). Earlier system/developer messages are added after the agent's system prompt for this call; earlier user/assistant/tool messages are this call's history instead of stored memory (MEMORY reads the session's stored turns only when the request carries none). A tool message names the call it answers (tool_call_id of an earlier assistant message, else 422). RAI checks each supplied message as input. Only the answered turn is stored (its user message and the final answer, not a reply that asks for the caller's functions), in the session named by the `session_id` body field, else the `x-session-id` header, else a new session named by the completion id; the session comes back in the `x-session-id` header and `session_id`.",
  `temperature, top_p and max_tokens / max_completion_tokens apply to this call (max_tokens at most the agent's own). n > 1 → 422. tools: the caller's own functions, offered to the model beside the agent's tools (a name the agent's tools use → 422); the agent runs its own tools as on chat, and a reply asking for any of the caller's functions ends the run: the answer's message carries those tool_calls (content null unless the model wrote text too) with finish_reason "tool_calls", and the caller continues with tool messages of the results (calls of the agent's tools asked in the same reply are not run; the model asks again). tool_choice: auto (default), none (the caller's functions are not offered), required or a named function of tools (the turn's first model call must call a tool). parallel_tool_calls, user and model are accepted and not acted on; other OpenAI parameters (stop, seed, logprobs, penalties, ...) are dropped unread. Limits: ${MAX_COMPLETION_MESSAGES} messages, ${MAX_CONTENT_CHARS} characters per message or text part, ${MAX_CONTENT_PARTS} text parts per message (other part types → 422), ${MAX_REQUEST_TOOLS} tools, ${MAX_MESSAGE_TOOL_CALLS} tool calls per message.`,
  'stream: true → text/event-stream of ChatCompletionChunk events (the first with role "assistant"; one per model delta; the calls of the caller’s functions, when the model asks for them, as one chunk of tool_calls; one with the finish_reason; with stream_options.include_usage every chunk has usage null and a last chunk has no choices and the usage), then `data: [DONE]`. Errors before the first chunk are JSON with their status in the contract’s shape ({detail}), with OpenAI’s error object {message, type, param, code} beside it (every error answer of this route carries it, so that the SDKs’ exceptions say why); a failure after it is an `event: error` with `data: {"detail": ...}`. finish_reason is "stop", "length" when the provider cut the answer at the token limit, or "tool_calls".',
].join('\n\n');

/**
 * POST /v3/inference/{agent_id}/chat/completions: OpenAI's chat completions over one agent. The session goes back in
 * the `x-session-id` header (and `session_id` of a plain answer). Streamed: errors before the first chunk are JSON
 * with their status, a failure after it an `event: error` with `data: {"detail": ...}` (the openai SDKs raise it as
 * an APIError), and a client that goes away aborts the provider call.
 */
export const completionRoutes: Route<CompletionRouteDeps>[] = [
  route({
    method: 'post',
    path: '/v3/inference/{agent_id}/chat/completions',
    summary: 'Run an agent with an OpenAI chat-completions request (plain or streamed)',
    operationId: 'createChatCompletion',
    description: completionsDescription,
    params: completionPath,
    headers: completionHeaders,
    body: completionBody,
    responses: {
      '200': {
        description: 'A ChatCompletion, or with stream: true the ChatCompletionChunk events ending `data: [DONE]`',
        headers: { 'x-session-id': { description: 'The session of the turn', schema: { type: 'string' } } },
        body: chatCompletion,
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...RUN_ERRORS,
    },
    handle: async ({ service, logger }: CompletionRouteDeps, { req, res, params, headers, body }) => {
      const call = service.prepare({ agentId: params.agent_id, body, sessionHeader: headers['x-session-id'] });
      res.set('x-session-id', call.sessionId);
      if (body.stream !== true) return service.complete(principalOf(req), call);
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      const sse = createSseWriter(res, logger);
      try {
        await service.stream(principalOf(req), call, { chunk: (c) => sse.send(c) }, abort.signal);
      } catch (err) {
        if (!sse.started()) throw err;
        sse.fail(err);
        return;
      }
      sse.done();
    },
  }),
];
