/** OpenAPI description of the agent service, served at /openapi.json and rendered at /docs. */
import { agentUtilityPaths, agentUtilitySchemas } from './agents/agent.openapi';
import { credentialPaths, credentialSchemas } from './credentials/credential.openapi';
import { toolPaths, toolSchemas } from './tools/tool.openapi';
import { apiKeySecurityScheme, errorSchemas, jsonContent as json, notFoundResponse, withStandardResponses as responses } from '@platform/http';

const agentId = { name: 'agent_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } };
const paging = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
const message = { type: 'object', properties: { message: { type: 'string' } } };
const agentBody = { $ref: '#/components/schemas/AgentBody' };
const notFound = notFoundResponse('Agent not found');
export const openapi = {
  openapi: '3.0.3',
  info: { title: 'Agent service', version: '1.0.0', description: 'Agents, single-task templates, provider credentials, tools and inference.' },
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
          description: { type: 'string', nullable: true },
          system_prompt: {
            type: 'string',
            nullable: true,
            description: 'The system message when non-empty; else it is built from the labelled agent_* fields and examples.',
          },
          features: { type: 'array', items: { $ref: '#/components/schemas/Feature' } },
          tools: { type: 'array', items: { type: 'string' } },
          llm_credential_id: { type: 'string', nullable: true },
          provider_id: { type: 'string', nullable: true },
          model: { type: 'string', nullable: true },
          top_p: { type: 'number', minimum: 0, maximum: 1 },
          temperature: { type: 'number', minimum: 0, maximum: 2 },
          response_format: { type: 'object', nullable: true },
          agent_role: { type: 'string', nullable: true },
          agent_goal: { type: 'string', nullable: true },
          agent_context: { type: 'string', nullable: true },
          agent_output: { type: 'string', nullable: true },
          agent_instructions: { type: 'string', nullable: true },
          examples: { type: 'string', nullable: true },
          tool: { type: 'string', nullable: true },
          tool_usage_description: { type: 'string', nullable: true },
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
            description: 'Values for {{name}} placeholders: an object of name → value, a list of {name, value} items, or the JSON text of either.',
            oneOf: [
              { type: 'object', nullable: true, additionalProperties: true },
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
                agent_id: { type: 'string', pattern: '^[0-9]+$', description: 'The same id (public clients read this name)' },
                name: { type: 'string' },
                description: { type: 'string', nullable: true, description: 'As GET /v3/agents/{agent_id} shows it' },
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
                usage: { type: 'object', nullable: true },
              },
            },
          },
        },
      },
      ...toolSchemas,
      ...credentialSchemas,
      ...agentUtilitySchemas,
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/v3/agents/': {
      post: { summary: 'Create an agent', requestBody: json(agentBody), responses: responses({ '201': { description: 'Created' } }) },
      get: {
        summary: "List the caller's agents",
        parameters: paging,
        responses: responses({ '200': { description: 'Agents', ...json({ $ref: '#/components/schemas/AgentList' }) } }),
      },
    },
    '/v3/agents/{agent_id}': {
      get: { summary: 'Get an agent', parameters: [agentId], responses: responses({ '200': { description: 'Agent' }, ...notFound }) },
      put: {
        summary: 'Replace an agent',
        parameters: [agentId],
        requestBody: json(agentBody),
        responses: responses({ '200': { description: 'Updated', ...json(message) }, ...notFound }),
      },
      delete: { summary: 'Delete an agent', parameters: [agentId], responses: responses({ '204': { description: 'Deleted' }, ...notFound }) },
    },
    '/v3/agents/template/single-task': {
      post: { summary: 'Create a single-task agent', requestBody: json(agentBody), responses: responses({ '201': { description: 'Created' } }) },
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
          '200': { description: 'The answer as it is produced', content: { 'text/event-stream': { schema: { type: 'string' } } } },
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
        responses: responses({ '200': { description: 'Messages', ...json({ $ref: '#/components/schemas/SessionMessages' }) } }),
      },
    },
    ...toolPaths,
    ...credentialPaths,
    ...agentUtilityPaths,
  },
};
