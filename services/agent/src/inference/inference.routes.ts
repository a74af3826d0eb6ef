import { Router } from 'express';
import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';
import { chatBody, sessionMessagesQuery, sessionPath } from './inference.schemas';
import type { InferenceService } from './inference.service';
import type { ChatInput } from './inference.types';

/** /v3/inference routes. */
export function createInferenceRoutes(service: InferenceService): Router {
  const r = Router();

  r.post('/v3/inference/chat', async (req, res) => {
    const input = validate<ChatInput>(chatBody, req.body, 'body');
    res.json(await service.chat(principalOf(req), input));
  });

  r.get('/v3/inference/sessions/:session_id/messages', async (req, res) => {
    const { session_id: sessionId } = validate<{ session_id: string }>(sessionPath, req.params, 'path');
    const page = validate<{ skip: number; limit: number; agent_id?: string }>(sessionMessagesQuery, req.query, 'query');
    const { items, total } = await service.messages(principalOf(req), sessionId, page);
    res.json({ messages: items, total });
  });

  return r;
}
