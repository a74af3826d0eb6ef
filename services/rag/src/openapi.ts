/**
 * OpenAPI description of the rag service, served at /openapi.json and rendered at /docs. The shapes come from the
 * joi schemas (`rag/rag.schemas.ts`); only route-level facts (summaries, status codes) are written here.
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

import { knowledgePaths, knowledgeSchemas } from './knowledge/knowledge.openapi';
import {
  configPath,
  listQuery,
  ragBody,
  ragConfig,
  ragList,
  ragPatch,
  retrieval,
  retrieveQuery,
  userPath,
} from './rag/rag.schemas';

const configId = parametersOf(configPath, 'path');
const paging = parametersOf(listQuery, 'query');
const body = { required: true, ...json(refTo(ragBody)) };
const config = json(refTo(ragConfig));
const list = json(refTo(ragList));
const error = json({ $ref: '#/components/schemas/Error' });
const notFound = notFoundResponse('RAG configuration not found');
const conflict = {
  '409': { description: 'The caller already has a configuration with that collection_name', ...error },
};
const unsupported = { '415': { description: 'Body is not application/json', ...error } };

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'RAG service',
    version: '1.0.0',
    description: 'Retrieval configurations binding LLM, embedding and vector-store credentials.',
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: {
      ...errorSchemas,
      ...schemaComponents({
        request: [...knowledgeSchemas.request, ragBody, ragPatch],
        response: [...knowledgeSchemas.response, ragConfig, ragList, retrieval],
      }),
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    ...knowledgePaths,
    '/v3/rag/': {
      post: {
        summary: 'Create a RAG configuration',
        operationId: 'createRag',
        requestBody: body,
        responses: responses({
          '200': { description: 'The configuration with its id', ...config },
          ...conflict,
          ...unsupported,
        }),
      },
      get: {
        summary: "List the caller's RAG configurations, newest first",
        operationId: 'listRag',
        parameters: paging,
        responses: responses({ '200': { description: 'A page', ...list } }),
      },
    },
    '/v3/rag/user/{user_id}/': {
      get: {
        summary: "List the caller's configurations (user_id: the caller's user id or own API key, else 403)",
        operationId: 'listRagOfUser',
        parameters: [...parametersOf(userPath, 'path'), ...paging],
        responses: responses({ '200': { description: 'A page', ...list } }),
      },
    },
    '/v3/rag/{config_id}/': {
      get: {
        summary: 'Read a RAG configuration',
        operationId: 'getRag',
        parameters: configId,
        responses: responses({ '200': { description: 'The configuration', ...config }, ...notFound }),
      },
      put: {
        summary: 'Update a RAG configuration: only the fields sent change (an explicit null clears a nullable field)',
        description:
          'Credential ids sent are checked like on create (422); a collection_name the caller already uses → 409.',
        operationId: 'updateRag',
        parameters: configId,
        requestBody: { required: true, ...json(refTo(ragPatch)) },
        responses: responses({
          '200': { description: 'The configuration', ...config },
          ...notFound,
          ...conflict,
          ...unsupported,
        }),
      },
      delete: {
        summary: 'Delete a RAG configuration',
        operationId: 'deleteRag',
        parameters: configId,
        responses: responses({ '204': { description: 'Deleted' }, ...notFound }),
      },
    },
    '/v3/rag/{config_id}/retrieve/': {
      get: {
        summary:
          'The chunks of the trained documents and knowledge graph that best match a query (BM25 and vectors fused), with URLs, scores and facts',
        operationId: 'retrieveRag',
        parameters: [...configId, ...parametersOf(retrieveQuery, 'query')],
        responses: responses({
          '200': { description: 'Best chunks first', ...json(refTo(retrieval)) },
          ...notFound,
          '502': { description: 'The graph service failed and no trained document matched', ...error },
        }),
      },
    },
  },
};
