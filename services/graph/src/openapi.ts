/** OpenAPI description of the graph service, served at /openapi.json and rendered at /docs. */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  withStandardResponses as responses,
} from '@platform/http';

import { TRAIN_LIMITS } from './graph/graph.schemas';

const str = { type: 'string' };
const int = { type: 'integer' };
const ragId = {
  name: 'rag_id',
  in: 'query',
  required: true,
  schema: { type: 'string' },
  description: "A RAG configuration of the caller's (rag service); another owner's → 404.",
};
const notFound = notFoundResponse('RAG configuration not found');
const unsupported = {
  '415': { description: 'Body is not application/json', ...json({ $ref: '#/components/schemas/Error' }) },
};

const trainProperties = {
  urls: {
    type: 'array',
    minItems: 1,
    maxItems: TRAIN_LIMITS.maxUrls,
    items: { type: 'string', format: 'uri' },
    description: 'Start URLs (http/https); the crawl stays on their sites.',
  },
  source: { ...str, default: 'website' },
  max_crawl_pages: { ...int, minimum: 1, maximum: TRAIN_LIMITS.maxCrawlPages, default: 1 },
  max_crawl_depth: { ...int, minimum: 0, maximum: TRAIN_LIMITS.maxCrawlDepth, default: 0 },
  dynamic_content_wait_secs: { ...int, minimum: 0, maximum: TRAIN_LIMITS.maxWaitSecs, default: 5 },
  actor: {
    ...str,
    default: 'apify/website-content-crawler',
    description: 'Accepted for compatibility; the crawler is built in.',
  },
  crawler_type: { type: 'string', enum: ['cheerio', 'playwright:chromium'], default: 'cheerio' },
  chunk_size: { ...int, minimum: TRAIN_LIMITS.minChunkSize, maximum: TRAIN_LIMITS.maxChunkSize, default: 1000 },
  chunk_overlap: { ...int, minimum: 0, default: 200, description: 'At most half of chunk_size.' },
};

const train = (operationId: string) => ({
  summary: 'Crawl a website and train the knowledge graph of a RAG configuration',
  operationId,
  parameters: [
    ragId,
    {
      name: 'async',
      in: 'query',
      schema: { type: 'boolean', default: false },
      description: 'true: 202 with a task id; the crawl runs on the queue.',
    },
  ],
  requestBody: { required: true, ...json({ $ref: '#/components/schemas/TrainRequest' }) },
  responses: responses({
    '200': { description: 'Trained', ...json({ $ref: '#/components/schemas/TrainResult' }) },
    '202': { description: 'Queued (async=true)', ...json({ $ref: '#/components/schemas/TaskQueued' }) },
    ...notFound,
    ...unsupported,
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
    schemas: {
      ...errorSchemas,
      TrainRequest: { type: 'object', required: ['urls'], properties: trainProperties },
      TrainResult: { type: 'object', properties: { message: str, rag_id: str, pages_trained: int } },
      TaskQueued: {
        type: 'object',
        properties: { task_id: str, rag_id: str, status: { type: 'string', enum: ['queued'] } },
      },
      Task: {
        type: 'object',
        properties: {
          task_id: str,
          rag_id: str,
          status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
          pages_crawled: int,
          pages_trained: int,
          errors: { type: 'array', items: { type: 'object', properties: { url: str, reason: str } } },
          error: { type: ['string', 'null'] },
          attempts: int,
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
      },
      Graph: {
        type: 'object',
        properties: {
          rag_id: str,
          nodes: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: str,
                label: { type: 'string', enum: ['Page', 'Entity'] },
                name: str,
                type: str,
                weight: int,
                url: str,
              },
            },
          },
          edges: {
            type: 'array',
            items: { type: 'object', properties: { source: str, target: str, type: str, weight: int } },
          },
        },
      },
      Retrieval: {
        type: 'object',
        properties: {
          rag_id: str,
          query: str,
          results: {
            type: 'array',
            items: {
              type: 'object',
              properties: { chunk_id: str, text: str, url: str, title: str, score: { type: 'number' } },
            },
          },
          facts: {
            type: 'array',
            items: {
              type: 'object',
              properties: { source: str, relation: str, target: str, weight: int, urls: { type: 'array', items: str } },
            },
          },
        },
      },
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/v4/knowledge_graph/neo4j/website/': { post: train('trainWebsite') },
    '/v4/knowledge_graph/website/': { post: train('trainWebsiteAlias') },
    '/v4/knowledge_graph/task/{task_id}': {
      get: {
        summary: 'State of an asynchronous training',
        operationId: 'getTrainingTask',
        parameters: [
          { name: 'task_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' } },
        ],
        responses: responses({
          '200': { description: 'The task', ...json({ $ref: '#/components/schemas/Task' }) },
          ...notFoundResponse('Task not found'),
        }),
      },
    },
    '/v4/knowledge_graph/graph/': {
      get: {
        summary: 'The graph of a RAG configuration: heaviest entities, their pages, relations and mentions',
        operationId: 'getGraph',
        parameters: [
          ragId,
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        ],
        responses: responses({
          '200': { description: 'Nodes and edges', ...json({ $ref: '#/components/schemas/Graph' }) },
          ...notFound,
        }),
      },
    },
    '/v4/knowledge_graph/retrieve/': {
      get: {
        summary: 'The chunks that best match a query (BM25), with their page URLs and scores, and the facts they state',
        operationId: 'retrieveChunks',
        parameters: [
          ragId,
          { name: 'query', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 2000 } },
          { name: 'top_k', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50, default: 5 } },
        ],
        responses: responses({
          '200': { description: 'Best chunks first', ...json({ $ref: '#/components/schemas/Retrieval' }) },
          ...notFound,
        }),
      },
    },
  },
};
