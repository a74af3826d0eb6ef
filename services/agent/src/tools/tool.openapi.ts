/** OpenAPI description of the /v3/tools routes, part of the service's /openapi.json. */
import { jsonContent as json, notFoundResponse, withStandardResponses as responses } from '@platform/http';

const paging = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
const message = { type: 'object', properties: { message: { type: 'string' } } };
const toolId = {
  name: 'tool_id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'openapi-<tool_set_name>-<operationId or method_path>',
};
const toolNotFound = notFoundResponse('Tool not found');
const toolList = { '200': { description: '{tools, total}', ...json({ $ref: '#/components/schemas/ToolList' }) } };
const objectOf = (description: string) => ({ type: 'object', additionalProperties: true, description });

/** What every tool answer shows (the list item; the tool info adds its document and settings). */
const listItemProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  tool_set_name: { type: 'string', description: 'As sent on creation (no openapi- prefix)' },
  description: { type: 'string' },
  method: { type: 'string' },
  path: { type: 'string' },
  operation_id: { type: ['string', 'null'] },
  enabled: { type: 'boolean' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: ['string', 'null'], format: 'date-time' },
};

export const toolSchemas = {
  ToolSetBody: {
    type: 'object',
    required: ['tool_set_name', 'openapi_schema'],
    properties: {
      tool_set_name: { type: 'string', pattern: '^[a-z0-9_]+$', description: 'Stored as openapi-<tool_set_name>.' },
      openapi_schema: objectOf('OpenAPI 3.0, 3.1 or Swagger 2.0 document; internal $refs only.'),
      default_headers: objectOf('Sent with every call; values encrypted at rest, masked on read.'),
      default_query_params: objectOf('Merged under the query of each call.'),
      default_body_params: objectOf('Merged under the JSON body of each call.'),
      endpoint_defaults: { type: 'object', properties: { base_url: { type: 'string', format: 'uri' } } },
      enhance_descriptions: { type: 'boolean', default: false },
      openai_api_key: {
        type: ['string', 'null'],
        description: 'Key for enhance_descriptions; used once, never stored.',
      },
    },
  },
  ToolUpdate: {
    type: 'object',
    properties: {
      description: { type: 'string' },
      default_headers: objectOf('Replaces the headers; a value "***" keeps the stored one.'),
      default_query_params: objectOf('Replaces the default query parameters.'),
      default_body_params: objectOf('Replaces the default body fields.'),
      endpoint_defaults: objectOf('Replaces the endpoint defaults (base_url).'),
      openapi_schema: objectOf('A new document that still has this tool’s operation.'),
    },
  },
  ToolListItem: { type: 'object', properties: listItemProperties },
  ToolInfo: {
    type: 'object',
    required: ['id', 'name', 'openapi_schema', 'paths'],
    properties: {
      ...listItemProperties,
      openapi_schema: { type: 'object', description: 'The document the tool set was made from' },
      paths: { type: 'object', description: "The document's path item of this tool's own operation" },
      parameters: { type: 'object', description: 'JSON Schema of the arguments the model gives' },
      default_headers: {
        type: 'object',
        additionalProperties: { type: 'string', enum: ['***'] },
        description: 'Names only; values masked',
      },
      default_query_params: { type: 'object' },
      default_body_params: { type: 'object' },
      endpoint_defaults: { type: 'object' },
    },
  },
  ToolList: {
    type: 'object',
    properties: {
      tools: { type: 'array', items: { $ref: '#/components/schemas/ToolListItem' } },
      total: { type: 'integer' },
    },
  },
  ToolCatalog: {
    type: 'object',
    properties: {
      total: { type: 'integer' },
      tools: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            _id: { type: 'string', description: 'The tool id' },
            provider_id: { type: 'string', description: 'The tool id' },
            provider_source: { type: 'string', enum: ['openapi'] },
            name: { type: 'string' },
            description: { type: 'string' },
            enabled: { type: 'boolean' },
            meta_data: {
              type: 'object',
              properties: { tool_set_name: { type: 'string' }, method: { type: 'string' }, path: { type: 'string' } },
            },
          },
        },
      },
    },
  },
  BulkDeleteBody: {
    type: 'object',
    required: ['tool_ids'],
    properties: {
      tool_ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 300 } },
    },
  },
  BulkDeleteResult: {
    type: 'object',
    properties: {
      deleted: { type: 'integer' },
      not_found: {
        type: 'array',
        items: { type: 'string' },
        description: 'Requested ids matching none of the caller’s tools',
      },
    },
  },
  ExecuteResult: {
    type: 'object',
    properties: {
      status_code: { type: 'integer' },
      headers: { type: 'object' },
      data: { description: 'JSON, or text' },
    },
  },
};

export const toolPaths = {
  '/v3/tools/': {
    post: {
      summary: 'Import a tool set: one tool per operation',
      requestBody: json({ $ref: '#/components/schemas/ToolSetBody' }),
      responses: responses({
        '201': {
          description: 'One tool per operation',
          ...json({
            type: 'object',
            required: ['tool_ids'],
            properties: { tool_ids: { type: 'array', items: { type: 'string' } } },
          }),
        },
        '409': { description: 'A set of that name exists', ...json({ $ref: '#/components/schemas/Error' }) },
      }),
    },
    get: { summary: "List the caller's tools", parameters: paging, responses: responses(toolList) },
  },
  '/v3/tools/all/user': {
    get: {
      summary: "List the caller's tools (same as GET /v3/tools/)",
      parameters: paging,
      responses: responses(toolList),
    },
  },
  '/v3/tools/bulk-delete': {
    post: {
      summary: "Delete several of the caller's tools",
      requestBody: json({ $ref: '#/components/schemas/BulkDeleteBody' }),
      responses: responses({
        '200': {
          description: 'Deleted count and the ids not found',
          ...json({ $ref: '#/components/schemas/BulkDeleteResult' }),
        },
      }),
    },
  },
  '/v3/providers/tools/all': {
    get: {
      summary: "The caller's tools as a provider catalog",
      parameters: paging,
      responses: responses({
        '200': { description: '{tools, total}', ...json({ $ref: '#/components/schemas/ToolCatalog' }) },
      }),
    },
  },
  '/v3/tools/openapi/{tool_id}': {
    get: {
      summary: 'Tool info: {id, name, openapi_schema, paths} and settings',
      parameters: [toolId],
      responses: responses({
        '200': { description: 'Tool', ...json({ $ref: '#/components/schemas/ToolInfo' }) },
        ...toolNotFound,
      }),
    },
  },
  '/v3/tools/openapi/{tool_id}/execute': {
    post: {
      summary: 'Call one of the document’s operations',
      parameters: [
        toolId,
        {
          name: 'path',
          in: 'query',
          required: true,
          schema: { type: 'string' },
          description: 'A path of the document, values filled in; may carry a query string.',
        },
        {
          name: 'method',
          in: 'query',
          required: true,
          schema: { type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] },
        },
      ],
      requestBody: { required: false, ...json({ type: 'object' }) },
      responses: responses({
        '200': {
          description: 'The remote answer, whatever its status',
          ...json({ $ref: '#/components/schemas/ExecuteResult' }),
        },
        ...toolNotFound,
        '409': { description: 'Tool is disabled', ...json({ $ref: '#/components/schemas/Error' }) },
        '502': {
          description: 'Unreachable, refused, timed out or too large',
          ...json({ $ref: '#/components/schemas/Error' }),
        },
      }),
    },
  },
  '/v3/tools/{tool_id}': {
    get: {
      summary: 'Same as /v3/tools/openapi/{tool_id}',
      parameters: [toolId],
      responses: responses({
        '200': { description: 'Tool', ...json({ $ref: '#/components/schemas/ToolInfo' }) },
        ...toolNotFound,
      }),
    },
    put: {
      summary: 'Update the given fields',
      parameters: [toolId],
      requestBody: json({ $ref: '#/components/schemas/ToolUpdate' }),
      responses: responses({ '200': { description: 'Updated', ...json(message) }, ...toolNotFound }),
    },
    patch: {
      summary: 'Enable or disable',
      parameters: [toolId, { name: 'enabled', in: 'query', required: true, schema: { type: 'boolean' } }],
      responses: responses({ '200': { description: 'Toggled', ...json(message) }, ...toolNotFound }),
    },
    delete: {
      summary: 'Delete a tool',
      parameters: [toolId],
      responses: responses({ '204': { description: 'Deleted' }, ...toolNotFound }),
    },
  },
};
