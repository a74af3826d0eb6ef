/**
 * OpenAPI description of the graph service, served at /openapi.json and rendered at /docs. The shapes come from the
 * joi schemas (`graph/graph.schemas.ts`, `tasks/task.schemas.ts`); only route-level facts (summaries, status codes)
 * are written here.
 */

import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  parametersOf,
  refTo,
  withStandardResponses as responses,
  schemaComponents,
} from '@platform/http';

import { crawlError } from './crawl/crawl.schemas';
import {
  deleteSourcesBody,
  graph,
  graphDeleted,
  graphEdge,
  graphNode,
  graphQuery,
  ragQuery,
  retrieval,
  retrievedChunk,
  retrievedFact,
  retrieveQuery,
  taskQueued,
  trainBody,
  trainQuery,
  trainResult,
} from './graph/graph.schemas';
import { task, taskPath } from './tasks/task.schemas';

const ref = refTo;

const components = schemaComponents({
  request: [trainBody, deleteSourcesBody],
  response: [
    trainResult,
    graphDeleted,
    taskQueued,
    crawlError,
    task,
    graphNode,
    graphEdge,
    graph,
    retrievedChunk,
    retrievedFact,
    retrieval,
  ],
});

const notFound = notFoundResponse('RAG configuration not found');
const unsupported = {
  '415': { description: 'Body is not application/json', ...json({ $ref: '#/components/schemas/Error' }) },
};

const train = (operationId: string) => ({
  summary: 'Crawl a website and train the knowledge graph of a RAG configuration',
  description:
    'At most `max_crawl_pages` pages are fetched (robots.txt aside). A training that trains no page answers 422 ' +
    'with one entry per start URL naming it and why (refused by the outbound rules, forbidden by robots.txt, ' +
    'failed to fetch); with `async=true` the task ends `failed` with the same text in `error`.',
  operationId,
  parameters: parametersOf(trainQuery, 'query'),
  requestBody: { required: true, ...json(ref(trainBody)) },
  responses: {
    ...responses({
      '200': { description: 'Trained', ...json(ref(trainResult)) },
      '202': { description: 'Queued (async=true)', ...json(ref(taskQueued)) },
      ...notFound,
      ...unsupported,
    }),
    '422': {
      description:
        'Invalid request, or no page trained: each start URL with its reason, e.g. `{"loc":["body","urls",0],' +
        '"msg":"http://169.254.169.254/latest/meta-data/: refused by the outbound guard (link-local address)",' +
        '"type":"url_not_crawled"}`',
      ...json({ $ref: '#/components/schemas/ValidationError' }),
    },
  },
});

const trainingTask = (operationId: string) => ({
  summary: 'State of an asynchronous training',
  operationId,
  parameters: parametersOf(taskPath, 'path'),
  responses: responses({
    '200': { description: 'The task', ...json(ref(task)) },
    ...notFoundResponse('Task not found'),
  }),
});

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Graph service',
    version: '1.0.0',
    description:
      'Knowledge graphs per RAG configuration, trained from crawled websites; graph reads and chunk retrieval.',
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: { ...errorSchemas, ...components },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/v4/knowledge_graph/neo4j/website/': { post: train('trainWebsite') },
    '/v4/knowledge_graph/website/': { post: train('trainWebsiteAlias') },
    '/v4/knowledge_graph/task/{task_id}': { get: trainingTask('getTrainingTask') },
    '/v4/knowledge_graph/task/status/{task_id}': {
      get: { ...trainingTask('getTrainingTaskAlias'), description: 'Same as GET /v4/knowledge_graph/task/{task_id}.' },
    },
    '/v4/knowledge_graph/graph/': {
      get: {
        summary: 'The graph of a RAG configuration: heaviest entities, their pages, relations and mentions',
        operationId: 'getGraph',
        parameters: parametersOf(graphQuery, 'query'),
        responses: responses({
          '200': { description: 'Nodes and edges', ...json(ref(graph)) },
          ...notFound,
        }),
      },
      delete: {
        summary: 'Remove the whole graph of a RAG configuration (its knowledge base reset)',
        operationId: 'deleteGraph',
        parameters: parametersOf(ragQuery, 'query'),
        responses: responses({
          '200': { description: 'The pages removed', ...json(ref(graphDeleted)) },
          ...notFound,
        }),
      },
    },
    '/v4/knowledge_graph/pages/': {
      delete: {
        summary: 'Remove the pages that only the named knowledge-base documents reached',
        description:
          'A page trained for several documents stays until the last of them is deleted. Chunks, entities and relations of a removed page go with it.',
        operationId: 'deleteGraphPages',
        parameters: parametersOf(ragQuery, 'query'),
        requestBody: { required: true, ...json(ref(deleteSourcesBody)) },
        responses: responses({
          '200': { description: 'The pages removed', ...json(ref(graphDeleted)) },
          ...notFound,
          ...unsupported,
        }),
      },
    },
    '/v4/knowledge_graph/retrieve/': {
      get: {
        summary: 'The chunks that best match a query (BM25), with their page URLs and scores, and the facts they state',
        operationId: 'retrieveChunks',
        parameters: parametersOf(retrieveQuery, 'query'),
        responses: responses({
          '200': { description: 'Best chunks first', ...json(ref(retrieval)) },
          ...notFound,
        }),
      },
    },
  },
};
