import { principalOf } from '@platform/auth';
import type { Owner } from '@platform/db';
import { route, type Route } from '@platform/http';

import { startFailures } from '../crawl/refusals';
import {
  deleteSourcesBody,
  graph,
  graphDeleted,
  graphQuery,
  ragQuery,
  retrieval,
  retrieveQuery,
  taskQueued,
  trainBody,
  trainQuery,
  trainResult,
} from './graph.schemas';
import type { GraphDeleted, TaskQueued, TrainResult } from './graph.schemas.types';
import type { GraphService } from './graph.service';
import type { TrainInput } from './train.types';

/** Where an asynchronous training goes (`async=true`): the task service, which sits above this feature. */
export interface TrainingQueue {
  start(owner: Owner, ragId: string, input: TrainInput): Promise<TaskQueued>;
}

/** What the graph routes' handlers need. */
export interface GraphRouteDeps {
  graph: GraphService;
  queue: TrainingQueue;
}

const NOT_FOUND = 'RAG configuration not found';
const UNSUPPORTED = 'Body is not application/json';

/** /v4/knowledge_graph routes of training, graph reads and retrieval (a task's state: `../tasks/task.routes.ts`). */
export const graphRoutes: Route<GraphRouteDeps>[] = [
  route({
    method: 'post',
    // The store's brand in the path, and (alias) without it.
    path: '/v4/knowledge_graph/neo4j/website/',
    aliases: [{ path: '/v4/knowledge_graph/website/', operationId: 'trainWebsiteAlias' }],
    summary: 'Crawl a website and train the knowledge graph of a RAG configuration',
    description:
      'At most `max_crawl_pages` pages are fetched (robots.txt aside). A training that trains no page answers 422 ' +
      'with one entry per start URL naming it and why (refused by the outbound rules, forbidden by robots.txt, ' +
      'failed to fetch); with `async=true` the task ends `failed` with the same text in `error`.',
    operationId: 'trainWebsite',
    query: trainQuery,
    body: trainBody,
    responses: {
      '200': { description: 'Trained', body: trainResult },
      '202': { description: 'Queued (async=true)', body: taskQueued },
      '404': NOT_FOUND,
      '415': UNSUPPORTED,
      '422': {
        description:
          'Invalid request, or no page trained: each start URL with its reason, e.g. `{"loc":["body","urls",0],' +
          '"msg":"http://169.254.169.254/latest/meta-data/: refused by the outbound guard (link-local address)",' +
          '"type":"url_not_crawled"}`',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } },
      },
    },
    handle: async ({ graph, queue }: GraphRouteDeps, { req, res, query, body: input }) => {
      const owner = principalOf(req);
      if (query.async) {
        res.status(202).json(await queue.start(owner, query.rag_id, input));
        return;
      }
      const result = await graph.train(owner, query.rag_id, input, {}, query.source_id);
      // Nothing trained answers 422 (the crawl rejects); some start URLs failing beside trained ones are listed here.
      const failed = startFailures(input.urls, result.errors).map((f) => ({ url: f.url, reason: f.reason }));
      const answer: TrainResult = {
        message: 'Website trained successfully',
        rag_id: query.rag_id,
        pages_trained: result.pages_trained,
        ...(failed.length > 0 ? { errors: failed } : {}),
      };
      return answer;
    },
  }),
  route({
    method: 'get',
    path: '/v4/knowledge_graph/graph/',
    summary: 'The graph of a RAG configuration: heaviest entities, their pages, relations and mentions',
    operationId: 'getGraph',
    query: graphQuery,
    responses: { '200': { description: 'Nodes and edges', body: graph }, '404': NOT_FOUND },
    handle: ({ graph }: GraphRouteDeps, { req, query }) => graph.graph(principalOf(req), query.rag_id, query.limit),
  }),
  route({
    method: 'delete',
    path: '/v4/knowledge_graph/graph/',
    summary: 'Remove the whole graph of a RAG configuration (its knowledge base reset)',
    operationId: 'deleteGraph',
    query: ragQuery,
    responses: { '200': { description: 'The pages removed', body: graphDeleted }, '404': NOT_FOUND },
    handle: async ({ graph }: GraphRouteDeps, { req, query }) => {
      const answer: GraphDeleted = await graph.reset(principalOf(req), query.rag_id);
      return answer;
    },
  }),
  route({
    method: 'delete',
    path: '/v4/knowledge_graph/pages/',
    summary: 'Remove the pages that only the named knowledge-base documents reached',
    description:
      'A page trained for several documents stays until the last of them is deleted. Chunks, entities and relations of a removed page go with it.',
    operationId: 'deleteGraphPages',
    query: ragQuery,
    body: deleteSourcesBody,
    responses: {
      '200': { description: 'The pages removed', body: graphDeleted },
      '404': NOT_FOUND,
      '415': UNSUPPORTED,
    },
    handle: async ({ graph }: GraphRouteDeps, { req, query, body }) => {
      const answer: GraphDeleted = await graph.deleteSources(principalOf(req), query.rag_id, body.source_ids);
      return answer;
    },
  }),
  route({
    method: 'get',
    path: '/v4/knowledge_graph/retrieve/',
    summary: 'The chunks that best match a query (BM25), with their page URLs and scores, and the facts they state',
    operationId: 'retrieveChunks',
    query: retrieveQuery,
    responses: { '200': { description: 'Best chunks first', body: retrieval }, '404': NOT_FOUND },
    handle: ({ graph }: GraphRouteDeps, { req, query }) =>
      graph.retrieve(principalOf(req), query.rag_id, query.query, query.top_k),
  }),
];
