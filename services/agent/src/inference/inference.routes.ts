import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';
import type { Logger } from '@platform/logger';

import type { StreamingInference } from './inference-stream.service';
import { asChatInput, chatBody, sessionMessagesQuery, sessionPath } from './inference.schemas';
import type { InferenceService } from './inference.service';
import { createSseWriter } from './sse-writer';

/** /v3/inference routes. */
export function createInferenceRoutes(
  service: InferenceService,
  streaming: StreamingInference,
  logger: Logger,
): Router {
  const r = Router();

  r.post('/v3/inference/chat', async (req, res) => {
    const input = asChatInput(validate(chatBody, req.body, 'body'));
    res.json(await service.chat(principalOf(req), input));
  });

  // Errors before the first event go to the error middleware (JSON, chat's statuses); after it, an `event: error`.
  // A client that goes away aborts the provider call.
  r.post('/v3/inference/stream', async (req, res) => {
    const input = asChatInput(validate(chatBody, req.body, 'body'));
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
  });

  r.get('/v3/inference/sessions/:session_id/messages', async (req, res) => {
    const { session_id: sessionId } = validate(sessionPath, req.params, 'path');
    const page = validate(sessionMessagesQuery, req.query, 'query');
    const { items, total } = await service.messages(principalOf(req), sessionId, page);
    res.json({ messages: items, total });
  });

  return r;
}
