import { Router, type Request } from 'express';

import { isInternalCall, principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { listQuery, ragBody, ragPatch, userPath } from './rag.schemas';
import type { RagService } from './rag.service';

/** The API key the request authenticated with; none on the internal path (its principal comes from headers). */
const authenticatedKey = (req: Request): string | undefined => (isInternalCall(req) ? undefined : req.get('x-api-key'));

/** /v3/rag routes. */
export function createRagRoutes(service: RagService): Router {
  const r = Router();
  r.post('/v3/rag', async (req, res) => {
    res.json(await service.create(principalOf(req), validate(ragBody, req.body, 'body')));
  });
  r.get('/v3/rag', async (req, res) => {
    res.json(await service.list(principalOf(req), validate(listQuery, req.query, 'query')));
  });
  r.get('/v3/rag/user/:user_id', async (req, res) => {
    const { user_id: userId } = validate(userPath, req.params, 'path');
    const page = validate(listQuery, req.query, 'query');
    res.json(await service.listOfUser(principalOf(req), userId, page, authenticatedKey(req)));
  });
  r.get('/v3/rag/:id', async (req, res) => {
    res.json(await service.get(principalOf(req), req.params.id));
  });
  r.put('/v3/rag/:id', async (req, res) => {
    res.json(await service.update(principalOf(req), req.params.id, validate(ragPatch, req.body, 'body')));
  });
  r.delete('/v3/rag/:id', async (req, res) => {
    await service.delete(principalOf(req), req.params.id);
    res.status(204).end();
  });
  return r;
}
