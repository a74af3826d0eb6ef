import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';
import type { Logger } from '@platform/logger';

import type { StreamingInference } from './inference-stream.service';
import {
  asChatInput,
  chatBody,
  chatBodyFast,
  chatResponse,
  sessionMessages,
  sessionMessagesQuery,
  sessionPath,
} from './inference.schemas';
import type { InferenceService } from './inference.service';
import { createSseWriter } from './sse-writer';

/** What the inference routes need. */
export interface InferenceRouteDeps {
  service: InferenceService;
  streaming: StreamingInference;
  logger: Logger;
}

/** The answers of a route that runs an agent, beside its own 200. */
export const RUN_ERRORS = { '404': 'Agent not found', '502': 'LLM provider error' };

/** /v3/inference routes. */
export const inferenceRoutes: Route<InferenceRouteDeps>[] = [
  route({
    method: 'post',
    path: '/v3/inference/chat/',
    summary: 'Run an agent on a message (memory per session_id)',
    description: 'Also callable by the worker with x-internal-secret + x-on-behalf-of-user/-org instead of a key.',
    body: chatBody,
    fastBody: chatBodyFast,
    responses: { '200': { description: 'The reply', body: chatResponse }, ...RUN_ERRORS },
    handle: ({ service }: InferenceRouteDeps, { req, body }) => service.chat(principalOf(req), asChatInput(body)),
  }),
  // Errors before the first event go to the error middleware (JSON, chat's statuses); after it, an `event: error`.
  // A client that goes away aborts the provider call.
  route({
    method: 'post',
    path: '/v3/inference/stream/',
    summary: 'Run an agent on a message and stream the answer as server-sent events',
    description:
      'One `data: {"content": "<delta>"}` event per model delta, then `data: [DONE]`. Errors before the first event are JSON with chat\'s statuses; a failure after it is an `event: error` with `data: {"detail": ...}`.',
    body: chatBody,
    responses: {
      '200': {
        description: 'The answer as it is produced',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...RUN_ERRORS,
    },
    handle: async ({ streaming, logger }: InferenceRouteDeps, { req, res, body }) => {
      const input = asChatInput(body);
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      const sse = createSseWriter(res, logger);
      try {
        await streaming.stream(principalOf(req), input, sse, abort.signal);
      } catch (err) {
        if (!sse.started()) throw err;
        sse.fail(err);
        return;
      }
      sse.done();
    },
  }),
  route({
    method: 'get',
    path: '/v3/inference/sessions/{session_id}/messages',
    summary: "The caller's stored messages of a session, newest first",
    params: sessionPath,
    query: sessionMessagesQuery,
    responses: { '200': { description: 'Messages', body: sessionMessages } },
    handle: async ({ service }: InferenceRouteDeps, { req, params, query }) => {
      const { items, total } = await service.messages(principalOf(req), params.session_id, query);
      return { messages: items, total };
    },
  }),
];
