/** OpenAPI description of the rag service, served at /openapi.json and rendered at /docs. */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  withStandardResponses as responses,
} from '@platform/http';

const configId = {
  name: 'config_id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[0-9a-f]{24}$' },
};
const userId = { name: 'user_id', in: 'path', required: true, schema: { type: 'string' } };
const paging = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
const body = { required: true, ...json({ $ref: '#/components/schemas/RagBody' }) };
const config = json({ $ref: '#/components/schemas/RagConfig' });
const list = json({ $ref: '#/components/schemas/RagList' });
const notFound = notFoundResponse('RAG configuration not found');
const conflict = {
  '409': {
    description: 'The caller already has a configuration with that collection_name',
    ...json({ $ref: '#/components/schemas/Error' }),
  },
};
const unsupported = {
  '415': { description: 'Body is not application/json', ...json({ $ref: '#/components/schemas/Error' }) },
};
const str = { type: 'string' };

const bodyProperties = {
  llm_credential_id: {
    ...str,
    description: "A credential id of the agent service (checked to be the caller's) or any other id (kept as given).",
  },
  embedding_credential_id: str,
  vector_db_credential_id: str,
  description: { ...str, default: '' },
  collection_name: { type: 'string', pattern: '^[a-z0-9_]+$', maxLength: 128, description: 'Unique per owner (409).' },
  llm_model: str,
  embedding_model: str,
  vector_store_provider: str,
  semantic_data_model: { type: 'boolean', default: false },
  meta_data: { type: 'object', additionalProperties: true, default: {} },
};
const required = [
  'llm_credential_id',
  'embedding_credential_id',
  'vector_db_credential_id',
  'collection_name',
  'llm_model',
  'embedding_model',
  'vector_store_provider',
];

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
      RagBody: { type: 'object', required, properties: bodyProperties },
      RagConfig: {
        type: 'object',
        properties: {
          id: str,
          user_id: str,
          ...bodyProperties,
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: ['string', 'null'], format: 'date-time' },
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
              properties: {
                source: str,
                relation: str,
                target: str,
                weight: { type: 'integer' },
                urls: { type: 'array', items: str },
              },
            },
          },
        },
      },
      RagList: {
        type: 'object',
        properties: {
          configs: { type: 'array', items: { $ref: '#/components/schemas/RagConfig' } },
          total: { type: 'integer' },
        },
      },
    },
  },
  security: [{ apiKey: [] }],
  paths: {
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
        summary: "List the caller's configurations (user_id must be the caller's, else 403)",
        operationId: 'listRagOfUser',
        parameters: [userId, ...paging],
        responses: responses({ '200': { description: 'A page', ...list } }),
      },
    },
    '/v3/rag/{config_id}/': {
      get: {
        summary: 'Read a RAG configuration',
        operationId: 'getRag',
        parameters: [configId],
        responses: responses({ '200': { description: 'The configuration', ...config }, ...notFound }),
      },
      put: {
        summary: 'Replace a RAG configuration',
        operationId: 'replaceRag',
        parameters: [configId],
        requestBody: body,
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
        parameters: [configId],
        responses: responses({ '204': { description: 'Deleted' }, ...notFound }),
      },
    },
    '/v3/rag/{config_id}/retrieve/': {
      get: {
        summary:
          'The chunks of the trained knowledge graph that best match a query (BM25), with page URLs, scores and facts',
        operationId: 'retrieveRag',
        parameters: [
          configId,
          { name: 'query', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 2000 } },
          { name: 'top_k', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50, default: 5 } },
        ],
        responses: responses({
          '200': { description: 'Best chunks first', ...json({ $ref: '#/components/schemas/Retrieval' }) },
          ...notFound,
          '502': { description: 'The graph service failed', ...json({ $ref: '#/components/schemas/Error' }) },
        }),
      },
    },
  },
};
