import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { retrieveQuery } from './rag.schemas';
import type { RagService } from './rag.service';
import type { RetrieveClient } from './retrieve.client';

/** The best chunks of the caller's configuration for a query: owner checked here, chunks from the graph service. */
export function createRetrieveRoutes(rag: RagService, graph: RetrieveClient): Router {
  const r = Router();
  r.get('/v3/rag/:id/retrieve', async (req, res) => {
    const q = validate(retrieveQuery, req.query, 'query');
    const owner = principalOf(req);
    const config = await rag.get(owner, req.params.id);
    res.json(await graph.retrieve(owner, config.id, q.query, q.top_k));
  });
  return r;
}
