import { BadGatewayError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, operationCall, siblingOperation, type ServiceTarget } from '@platform/service-client';

import { retrieval } from './rag.schemas';
import type { Retrieval } from './rag.schemas.types';
import type { Owner } from './rag.types';

/** The graph service's retrieval for a rag id. */
const GRAPH_RETRIEVE = siblingOperation({
  service: 'graph',
  method: 'GET',
  path: '/v4/knowledge_graph/retrieve/',
  response: retrieval,
});

/** The graph service, which holds the trained knowledge of each RAG configuration, and how rag reaches it. */
export type GraphServiceTarget = ServiceTarget;

/** Asks the graph service for the best chunks of a configuration, on behalf of its owner. */
export function createRetrieveClient(deps: { outbound: OutboundClient; target: GraphServiceTarget; logger: Logger }) {
  const graph = createServiceClient({
    ...deps,
    name: 'graph service',
    unexpected: () => new BadGatewayError('Graph service error'),
  });
  return {
    retrieve(owner: Owner, ragId: string, query: string, topK: number): Promise<Retrieval> {
      return graph.call({
        what: 'a retrieval',
        ...operationCall(GRAPH_RETRIEVE),
        query: { rag_id: ragId, query, top_k: String(topK) },
        owner,
        maxResponseBytes: 4 * 1024 * 1024,
      });
    },
  };
}

export type RetrieveClient = ReturnType<typeof createRetrieveClient>;
