/** OpenAPI description of the agent utility routes public clients call (contract §7), part of /openapi.json. */
import { jsonContent as json, notFoundResponse, withStandardResponses as responses } from '@platform/http';

export const agentUtilitySchemas = {
  AgentByName: {
    type: 'object',
    required: ['agent_id', 'id', 'name'],
    properties: {
      agent_id: { type: 'string', pattern: '^[0-9]+$' },
      id: { type: 'string', pattern: '^[0-9]+$', description: 'The same id' },
      name: { type: 'string' },
    },
  },
};

export const agentUtilityPaths = {
  '/v3/agents/utility/by-name/{name}': {
    get: {
      summary: "The caller's newest agent with exactly this name",
      parameters: [
        { name: 'name', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 200 } },
      ],
      responses: responses({
        '200': { description: 'Its ids and name', ...json({ $ref: '#/components/schemas/AgentByName' }) },
        ...notFoundResponse('Agent not found'),
      }),
    },
  },
};
