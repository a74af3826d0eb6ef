/** OpenAPI description of the agent service, served at /openapi.json and rendered at /docs. */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  withStandardResponses as responses,
} from '@platform/http';

import { agentUtilityPaths, agentUtilitySchemas } from './agents/agent.openapi';
import { credentialPaths, credentialSchemas } from './credentials/credential.openapi';
import { taskPaths, taskSchemas } from './tasks/task.openapi';
import { toolPaths, toolSchemas } from './tools/tool.openapi';

const agentId = { name: 'agent_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } };
const paging = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
const message = { type: 'object', properties: { message: { type: 'string' } } };
const agentBody = { $ref: '#/components/schemas/AgentBody' };
const notFound = notFoundResponse('Agent not found');
/** A create's answer: the new id (a JSON integer), a message and `extra`. */
const created = (extra: object) => ({
  type: 'object',
  required: ['id', 'message'],
  properties: { id: { type: 'integer' }, message: { type: 'string' }, ...extra },
});
export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Agent service',
    version: '1.0.0',
    description: 'Agents, single-task templates, provider credentials, tools and inference.',
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: {
      ...errorSchemas,
      Feature: {
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string' }, config: { type: 'object' }, priority: { type: 'integer' } },
      },
      AgentBody: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          description: { type: ['string', 'null'] },
          system_prompt: {
            type: ['string', 'null'],
            description:
              'The system message when non-empty; else it is built from the labelled agent_* fields and examples.',
          },
          features: { type: 'array', items: { $ref: '#/components/schemas/Feature' } },
          tools: { type: 'array', items: { type: 'string' } },
          llm_credential_id: { type: ['string', 'null'] },
          provider_id: { type: ['string', 'null'] },
          model: { type: ['string', 'null'] },
          top_p: { type: 'number', minimum: 0, maximum: 1 },
          temperature: { type: 'number', minimum: 0, maximum: 2 },
          response_format: { type: ['object', 'null'] },
          agent_role: { type: ['string', 'null'] },
          agent_goal: { type: ['string', 'null'] },
          agent_context: { type: ['string', 'null'] },
          agent_output: { type: ['string', 'null'] },
          agent_instructions: { type: ['string', 'null'] },
          examples: { type: ['string', 'null'] },
          tool: { type: ['string', 'null'] },
          tool_usage_description: { type: ['string', 'null'] },
        },
      },
      Agent: {
        type: 'object',
        required: ['id', 'agent_id', 'name', 'kind', 'created_at'],
        description: 'The stored agent: every field of AgentBody as stored (unset ones null), the owner, and times.',
        properties: {
          id: { type: 'string', pattern: '^[0-9]+$' },
          agent_id: { type: 'string', pattern: '^[0-9]+$', description: 'The same id' },
          kind: { type: 'string', enum: ['agent', 'single_task'] },
          user_id: { type: 'string' },
          org_id: { type: 'string' },
          name: { type: 'string' },
          features: { type: 'array', items: { $ref: '#/components/schemas/Feature' } },
          tools: { type: 'array', items: { type: 'string' } },
          top_p: { type: ['number', 'null'] },
          temperature: { type: ['number', 'null'] },
          max_iterations: { type: ['integer', 'null'] },
          store_messages: { type: ['boolean', 'null'] },
          response_format: { type: ['object', 'null'] },
          additional_model_params: { type: ['object', 'null'] },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: ['string', 'null'], format: 'date-time' },
          ...Object.fromEntries(
            [
              'description',
              'system_prompt',
              'llm_credential_id',
              'provider_id',
              'model',
              'agent_role',
              'agent_goal',
              'agent_context',
              'agent_output',
              'agent_instructions',
              'examples',
              'tool',
              'tool_usage_description',
              'template_type',
              'version',
            ].map((k) => [k, { type: ['string', 'null'] }]),
          ),
        },
      },
      ChatBody: {
        type: 'object',
        required: ['agent_id', 'session_id', 'message'],
        properties: {
          agent_id: { oneOf: [{ type: 'string', pattern: '^[0-9]+$' }, { type: 'integer' }] },
          session_id: { type: 'string', maxLength: 200 },
          message: { type: 'string' },
          system_prompt_variables: {
            description:
              'Values for {{name}} placeholders: an object of name → value, a list of {name, value} items, or the JSON text of either.',
            oneOf: [
              { type: ['object', 'null'], additionalProperties: true },
              {
                type: 'array',
                maxItems: 200,
                items: { type: 'object', properties: { name: { type: 'string' }, key: { type: 'string' }, value: {} } },
              },
              { type: 'string' },
            ],
          },
        },
      },
      AgentList: {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          agents: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'agent_id', 'name', 'description'],
              properties: {
                id: { type: 'string', pattern: '^[0-9]+$' },
                agent_id: {
                  type: 'string',
                  pattern: '^[0-9]+$',
                  description: 'The same id (public clients read this name)',
                },
                name: { type: 'string' },
                description: { type: ['string', 'null'], description: 'As GET /v3/agents/{agent_id} shows it' },
              },
            },
          },
        },
      },
      ChatResponse: {
        type: 'object',
        properties: { response: { type: 'string' }, session_id: { type: 'string' }, agent_id: { type: 'string' } },
      },
      SessionMessages: {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          messages: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                session_id: { type: 'string' },
                agent_id: { type: 'string' },
                role: { type: 'string', enum: ['user', 'assistant'] },
                content: { type: 'string' },
                created_at: { type: 'string', format: 'date-time' },
                usage: { type: ['object', 'null'] },
              },
            },
          },
        },
      },
      ...toolSchemas,
      ...credentialSchemas,
      ...agentUtilitySchemas,
      ...taskSchemas,
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/v3/agents/': {
      post: {
        summary: 'Create an agent',
        requestBody: json(agentBody),
        responses: responses({
          '201': { description: 'Created', ...json(created({ agent_id: { type: 'string', pattern: '^[0-9]+$' } })) },
        }),
      },
      get: {
        summary: "List the caller's agents",
        parameters: paging,
        responses: responses({ '200': { description: 'Agents', ...json({ $ref: '#/components/schemas/AgentList' }) } }),
      },
    },
    '/v3/agents/{agent_id}': {
      get: {
        summary: 'Get an agent',
        parameters: [agentId],
        responses: responses({
          '200': { description: 'Agent', ...json({ $ref: '#/components/schemas/Agent' }) },
          ...notFound,
        }),
      },
      put: {
        summary: 'Replace an agent',
        parameters: [agentId],
        requestBody: json(agentBody),
        responses: responses({ '200': { description: 'Updated', ...json(message) }, ...notFound }),
      },
      delete: {
        summary: 'Delete an agent',
        parameters: [agentId],
        responses: responses({ '204': { description: 'Deleted' }, ...notFound }),
      },
    },
    '/v3/agents/template/single-task': {
      post: {
        summary: 'Create a single-task agent',
        requestBody: json(agentBody),
        responses: responses({ '201': { description: 'Created', ...json(created({})) } }),
      },
    },
    '/v3/agents/template/single-task/{agent_id}': {
      put: {
        summary: 'Replace a single-task agent',
        parameters: [agentId],
        requestBody: json(agentBody),
        responses: responses({ '200': { description: 'Updated', ...json(message) }, ...notFound }),
      },
    },
    '/v3/inference/chat/': {
      post: {
        summary: 'Run an agent on a message (memory per session_id)',
        description: 'Also callable by the worker with x-internal-secret + x-on-behalf-of-user/-org instead of a key.',
        requestBody: json({ $ref: '#/components/schemas/ChatBody' }),
        responses: responses({
          '200': { description: 'The reply', ...json({ $ref: '#/components/schemas/ChatResponse' }) },
          ...notFound,
          '502': { description: 'LLM provider error', ...json({ $ref: '#/components/schemas/Error' }) },
        }),
      },
    },
    '/v3/inference/stream/': {
      post: {
        summary: 'Run an agent on a message and stream the answer as server-sent events',
        description:
          'One `data: {"content": "<delta>"}` event per model delta, then `data: [DONE]`. Errors before the first event are JSON with chat\'s statuses; a failure after it is an `event: error` with `data: {"detail": ...}`.',
        requestBody: json({ $ref: '#/components/schemas/ChatBody' }),
        responses: responses({
          '200': {
            description: 'The answer as it is produced',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...notFound,
          '502': { description: 'LLM provider error', ...json({ $ref: '#/components/schemas/Error' }) },
        }),
      },
    },
    '/v3/inference/sessions/{session_id}/messages': {
      get: {
        summary: "The caller's stored messages of a session, newest first",
        parameters: [
          { name: 'session_id', in: 'path', required: true, schema: { type: 'string' } },
          ...paging,
          { name: 'agent_id', in: 'query', schema: { type: 'string', pattern: '^[0-9]+$' } },
        ],
        responses: responses({
          '200': { description: 'Messages', ...json({ $ref: '#/components/schemas/SessionMessages' }) },
        }),
      },
    },
    ...toolPaths,
    ...credentialPaths,
    ...agentUtilityPaths,
    ...taskPaths,
  },
};
