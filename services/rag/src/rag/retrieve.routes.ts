import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import type { KnowledgeService } from '../knowledge/knowledge.service';
import { configPath, retrieval, retrieveQuery } from './rag.schemas';
import type { RetrieveClient } from './retrieve.client';

/** What retrieval needs: the trained documents, and the knowledge graph (null: no graph service configured). */
export interface RetrieveRouteDeps {
  knowledge: KnowledgeService;
  graph: RetrieveClient | null;
}

/**
 * The best chunks of the caller's configuration for a query: owner checked here; the trained documents (this
 * service) and the knowledge graph (the graph service, when one is configured) searched together.
 */
export const retrieveRoutes: Route<RetrieveRouteDeps>[] = [
  route({
    method: 'get',
    path: '/v3/rag/{config_id}/retrieve/',
    summary:
      'The chunks of the trained documents and knowledge graph that best match a query (BM25 and vectors fused), with URLs, scores and facts',
    operationId: 'retrieveRag',
    paramsDoc: configPath,
    query: retrieveQuery,
    responses: {
      '200': { description: 'Best chunks first', body: retrieval },
      '404': 'RAG configuration not found',
      '502': 'The graph service failed and no trained document matched',
    },
    handle: ({ knowledge, graph }: RetrieveRouteDeps, { req, query: q }) => {
      const owner = principalOf(req);
      return knowledge.retrieve(owner, String(req.params.config_id), q.query, q.top_k, (config) =>
        graph
          ? graph.retrieve(owner, config.id, q.query, q.top_k)
          : Promise.resolve({ rag_id: config.id, query: q.query, results: [], facts: [] }),
      );
    },
  }),
];
