import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate, type Page } from '@platform/http';

import { listQuery, ragBody, userPath } from './rag.schemas';
import type { RagService } from './rag.service';
import type { RagInput } from './rag.types';

/** /v3/rag routes. */
export function createRagRoutes(service: RagService): Router {
  const r = Router();
  r.post('/v3/rag', async (req, res) => {
    const input = validate<RagInput>(ragBody, req.body, 'body');
    res.json(await service.create(principalOf(req), input));
  });
  r.get('/v3/rag', async (req, res) => {
    res.json(await service.list(principalOf(req), validate<Page>(listQuery, req.query, 'query')));
  });
  r.get('/v3/rag/user/:user_id', async (req, res) => {
    const { user_id: userId } = validate<{ user_id: string }>(userPath, req.params, 'path');
    const page = validate<Page>(listQuery, req.query, 'query');
    res.json(await service.listOfUser(principalOf(req), userId, page));
  });
  r.get('/v3/rag/:id', async (req, res) => {
    res.json(await service.get(principalOf(req), req.params.id));
  });
  r.put('/v3/rag/:id', async (req, res) => {
    const input = validate<RagInput>(ragBody, req.body, 'body');
    res.json(await service.replace(principalOf(req), req.params.id, input));
  });
  r.delete('/v3/rag/:id', async (req, res) => {
    await service.delete(principalOf(req), req.params.id);
    res.status(204).end();
  });
  return r;
}
