import { Router, type Request } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';
import type { Logger } from '@platform/logger';

import { createSseWriter } from '../inference/sse-writer';
import { completionBody, completionHeaders, completionPath } from './completion.schemas';
import type { CompletionService } from './completion.service';

/** The route's path, for the auth that also takes `Authorization: Bearer <key>` on it (what the openai SDKs send). */
export const COMPLETIONS_PATH = /^\/v3\/inference\/[^/]+\/chat\/completions\/?$/;

/** True for a request to the chat-completions route (wherever the router that sees it is mounted). */
export const isCompletionsRequest = (req: Request): boolean => COMPLETIONS_PATH.test(req.baseUrl + req.path);

/**
 * POST /v3/inference/{agent_id}/chat/completions: OpenAI's chat completions over one agent. The session goes back in
 * the `x-session-id` header (and `session_id` of a plain answer). Streamed: errors before the first chunk are JSON
 * with their status, a failure after it an `event: error` with `data: {"detail": ...}` (the openai SDKs raise it as
 * an APIError), and a client that goes away aborts the provider call.
 */
export function createCompletionRoutes(service: CompletionService, logger: Logger): Router {
  const r = Router();

  r.post('/v3/inference/:agent_id/chat/completions', async (req, res) => {
    const { agent_id: agentId } = validate(completionPath, req.params, 'path');
    const headers = validate(completionHeaders, { 'x-session-id': req.get('x-session-id') }, 'header');
    const body = validate(completionBody, req.body, 'body');
    const call = service.prepare({ agentId, body, sessionHeader: headers['x-session-id'] });
    res.set('x-session-id', call.sessionId);
    if (body.stream !== true) {
      res.json(await service.complete(principalOf(req), call));
      return;
    }
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
  });

  return r;
}
