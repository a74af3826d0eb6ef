import { Router } from 'express';
import Joi from 'joi';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import type { RagService } from './rag.service';
import type { RetrieveClient } from './retrieve.client';

/** `GET /v3/rag/{id}/retrieve/` query. */
export const retrieveQuery = Joi.object({
  query: Joi.string().trim().min(1).max(2000).required(),
  top_k: Joi.number().integer().min(1).max(50).default(5),
});

/** The best chunks of the caller's configuration for a query: owner checked here, chunks from the graph service. */
export function createRetrieveRoutes(rag: RagService, graph: RetrieveClient): Router {
  const r = Router();
  r.get('/v3/rag/:id/retrieve', async (req, res) => {
    const q = validate<{ query: string; top_k: number }>(retrieveQuery, req.query, 'query');
    const owner = principalOf(req);
    const config = await rag.get(owner, req.params.id);
    res.json(await graph.retrieve(owner, config.id, q.query, q.top_k));
  });
  return r;
}
