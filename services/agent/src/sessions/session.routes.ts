import { Router, type Request } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { sessionCreate, sessionHistoryQuery, sessionListQuery, sessionPatch } from './session.schemas';
import type { SessionService } from './session.service';

/** The path's session id as sent (the service answers 404 for one no session can have). */
const sessionIdOf = (req: Request) => String(req.params.session_id);

/** /v3/sessions: sessions over the stored chat turns. */
export function createSessionRoutes(service: SessionService): Router {
  const r = Router();

  r.post('/v3/sessions', async (req, res) => {
    res.status(201).json(await service.create(principalOf(req), validate(sessionCreate, req.body, 'body')));
  });

  r.get('/v3/sessions', async (req, res) => {
    res.json(await service.list(principalOf(req), validate(sessionListQuery, req.query, 'query')));
  });

  r.get('/v3/sessions/:session_id', async (req, res) => {
    res.json(await service.get(principalOf(req), sessionIdOf(req)));
  });

  r.patch('/v3/sessions/:session_id', async (req, res) => {
    const body = validate(sessionPatch, req.body, 'body');
    res.json(await service.patch(principalOf(req), sessionIdOf(req), body));
  });

  r.delete('/v3/sessions/:session_id', async (req, res) => {
    await service.delete(principalOf(req), sessionIdOf(req));
    res.status(204).end();
  });

  r.get('/v3/sessions/:session_id/messages', async (req, res) => {
    const query = validate(sessionHistoryQuery, req.query, 'query');
    res.json(await service.messages(principalOf(req), sessionIdOf(req), query));
  });

  return r;
}
