import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, operationCall, siblingOperation, type ServiceTarget } from '@platform/service-client';

import { graphDeletion, graphTraining } from './clients.schemas';
import type { TrainWebsiteBody } from './knowledge.schemas.types';
import type { Owner } from './knowledge.types';
import { passOnRefusal } from './refusals';

/** The graph service's training from a website (answered when done). */
const GRAPH_TRAIN_WEBSITE = siblingOperation({
  service: 'graph',
  method: 'POST',
  path: '/v4/knowledge_graph/website/',
  response: graphTraining,
});
/** The graph service's removal of the pages of some sources. */
const GRAPH_DELETE_PAGES = siblingOperation({
  service: 'graph',
  method: 'DELETE',
  path: '/v4/knowledge_graph/pages/',
  response: graphDeletion,
});
/** The graph service's removal of a rag id's whole graph. */
const GRAPH_RESET = siblingOperation({
  service: 'graph',
  method: 'DELETE',
  path: '/v4/knowledge_graph/graph/',
  response: graphDeletion,
});

/**
 * Website training through the graph service's crawl (`POST /v4/knowledge_graph/website/`), synchronous, on behalf
 * of the owner: its refusals (422: invalid fields, or a start URL that gave no page, refused by the outbound rules or
 * robots.txt or not fetched) are passed on with their detail, a missing configuration (404) as ours. The pages
 * are recorded under the knowledge-base document they fill, so that deleting it removes them from the graph.
 */
/** Time limit of one delete at the graph service. */
const DELETE_TIMEOUT_MS = 30_000;

/**
 * The graph service's 422 with each `["body", "urls", i]` entry as `["body", "urls"]`: each of its calls is given one
 * of our start URLs, so its index is not the URL's place in our request (the entry's `msg` names the URL).
 */
function withoutUrlIndex(body: unknown): unknown {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail)) return body;
  return {
    detail: detail.map((e: { loc?: unknown }) =>
      Array.isArray(e?.loc) && e.loc[0] === 'body' && e.loc[1] === 'urls' ? { ...e, loc: ['body', 'urls'] } : e,
    ),
  };
}

export function createGraphTrainClient(deps: {
  outbound: OutboundClient;
  target: ServiceTarget;
  /** Time limit of one training (a crawl): far above the target's own, which is meant for retrievals. */
  timeoutMs: number;
  logger: Logger;
}) {
  const graph = createServiceClient({ ...deps, name: 'graph service' });
  return {
    /** Pages the crawl of `body` trained into the rag id's knowledge graph. */
    async train(owner: Owner, ragId: string, body: TrainWebsiteBody, documentId: string): Promise<number> {
      const result = await graph.call({
        what: 'a website training',
        ...operationCall(GRAPH_TRAIN_WEBSITE),
        query: { rag_id: ragId, source_id: documentId },
        owner,
        body,
        on: { 404: (b) => passOnRefusal(b, 404), 422: (b) => passOnRefusal(withoutUrlIndex(b), 422) },
        timeoutMs: deps.timeoutMs,
        maxResponseBytes: 64 * 1024,
      });
      return result.pages_trained;
    },
    /** Removes from the graph the pages only these website documents reached; the pages removed. */
    async deleteDocuments(owner: Owner, ragId: string, documentIds: string[]): Promise<number> {
      const result = await graph.call({
        what: 'a pages delete',
        ...operationCall(GRAPH_DELETE_PAGES),
        query: { rag_id: ragId },
        owner,
        body: { source_ids: documentIds },
        on: { 404: (b) => passOnRefusal(b, 404) },
        timeoutMs: DELETE_TIMEOUT_MS,
        maxResponseBytes: 4 * 1024,
      });
      return result.deleted;
    },
    /** Removes the whole knowledge graph of the rag id; the pages removed. */
    async reset(owner: Owner, ragId: string): Promise<number> {
      const result = await graph.call({
        what: 'a graph reset',
        ...operationCall(GRAPH_RESET),
        query: { rag_id: ragId },
        owner,
        on: { 404: (b) => passOnRefusal(b, 404) },
        timeoutMs: DELETE_TIMEOUT_MS,
        maxResponseBytes: 4 * 1024,
      });
      return result.deleted;
    },
  };
}

export type GraphTrainClient = ReturnType<typeof createGraphTrainClient>;
