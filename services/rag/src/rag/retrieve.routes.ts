import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import type { KnowledgeService } from '../knowledge/knowledge.service';
import { retrieveQuery } from './rag.schemas';
import type { RetrieveClient } from './retrieve.client';

/**
 * The best chunks of the caller's configuration for a query: owner checked here; the trained documents (this
 * service) and the knowledge graph (the graph service, when one is configured) searched together.
 */
export function createRetrieveRoutes(knowledge: KnowledgeService, graph: RetrieveClient | null): Router {
  const r = Router();
  r.get('/v3/rag/:id/retrieve', async (req, res) => {
    const q = validate(retrieveQuery, req.query, 'query');
    const owner = principalOf(req);
    res.json(
      await knowledge.retrieve(owner, req.params.id, q.query, q.top_k, (config) =>
        graph
          ? graph.retrieve(owner, config.id, q.query, q.top_k)
          : Promise.resolve({ rag_id: config.id, query: q.query, results: [], facts: [] }),
      ),
    );
  });
  return r;
}
