/** OpenAPI description of the voice service, served at /openapi.json and rendered at /docs. */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  withStandardResponses as responses,
} from '@platform/http';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
// `format: uuid` (any version, either case; another string → 422).
const sessionId = { name: 'sessionId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const agentId = { name: 'agentId', in: 'path', required: true, schema: { type: 'string', maxLength: 200 } };
const dateTime = { type: 'string', format: 'date-time' };
const transcriptNotFound = {
  '404': {
    description: "No such transcript in the caller's organization (also another organization's)",
    ...json(ref('TranscriptError')),
  },
};

const summaryProperties = {
  id: { type: 'string' },
  sessionId: { type: 'string', format: 'uuid' },
  roomName: { type: 'string' },
  agentId: { type: 'string' },
  orgId: { type: 'string' },
  createdByUserId: { type: 'string' },
  closeReason: { type: 'string' },
  durationMs: { type: 'integer' },
  messageCount: { type: 'integer' },
  startedAt: dateTime,
  endedAt: dateTime,
  createdAt: dateTime,
  updatedAt: dateTime,
};

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Voice service',
    version: '1.0.0',
    description: "Voice session transcripts of the caller's organization.",
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: {
      ...errorSchemas,
      TranscriptError: { type: 'object', properties: { error: { type: 'string' }, details: { type: 'string' } } },
      ChatItem: {
        type: 'object',
        required: ['type'],
        additionalProperties: true,
        description:
          'message {role, content}, agent_handoff {new_agent_id, old_agent_id?}, function_call {call_id, name, arguments}, ' +
          'function_call_output {call_id, output, is_error?}; other types are kept as sent.',
        properties: { type: { type: 'string' }, id: { type: 'string' }, created_at: { type: 'number' } },
      },
      TranscriptSummary: { type: 'object', properties: summaryProperties },
      Transcript: {
        type: 'object',
        properties: {
          ...summaryProperties,
          sessionReport: { type: 'object', additionalProperties: true },
          chatHistory: { type: 'array', items: ref('ChatItem') },
        },
      },
      TranscriptIngest: {
        type: 'object',
        required: ['sessionId', 'agentId'],
        properties: {
          sessionId: { type: 'string', format: 'uuid' },
          agentId: { type: 'string', maxLength: 200 },
          roomName: { type: 'string' },
          sessionReport: { type: 'object', additionalProperties: true },
          chatHistory: { type: 'array', items: ref('ChatItem') },
          closeReason: { type: 'string' },
          durationMs: { type: 'integer', minimum: 0 },
          messageCount: { type: 'integer', minimum: 0 },
          startedAt: dateTime,
          endedAt: dateTime,
        },
      },
      TranscriptList: {
        type: 'object',
        properties: {
          items: { type: 'array', items: ref('TranscriptSummary') },
          total: { type: 'integer' },
          limit: { type: 'integer' },
          offset: { type: 'integer' },
          nextOffset: { type: ['integer', 'null'] },
        },
      },
      AgentStats: {
        type: 'object',
        properties: {
          totalCalls: { type: 'integer' },
          avgMessages: { type: 'number' },
          avgDurationMs: { type: 'integer' },
        },
      },
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/v1/transcripts': {
      post: {
        summary: 'Store a call transcript (voice runtime); idempotent on sessionId',
        requestBody: json(ref('TranscriptIngest')),
        responses: responses({
          '201': { description: 'Stored', ...json({ type: 'object', properties: { transcript: ref('Transcript') } }) },
          '200': {
            description: 'A replay: the stored transcript, unchanged',
            ...json({ type: 'object', properties: { transcript: ref('Transcript') } }),
          },
          '409': { description: 'The session already has a transcript with other content', ...json(ref('Error')) },
          '413': { description: 'Body over 10 MiB', ...json(ref('Error')) },
          '415': { description: 'Body is not JSON', ...json(ref('Error')) },
        }),
      },
      get: {
        summary: "List the organization's transcripts by startedAt",
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
          { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
          { name: 'sort', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'], default: 'desc' } },
          { name: 'agentId', in: 'query', schema: { type: 'string', maxLength: 200 } },
          { name: 'from', in: 'query', schema: { ...dateTime, description: 'startedAt ≥ from' } },
          { name: 'to', in: 'query', schema: { ...dateTime, description: 'startedAt < to' } },
        ],
        responses: responses({ '200': { description: 'A page', ...json(ref('TranscriptList')) } }),
      },
    },
    '/v1/transcripts/{sessionId}': {
      get: {
        summary: "One transcript of the caller's organization",
        parameters: [sessionId],
        responses: responses({
          '200': {
            description: 'The transcript',
            ...json({ type: 'object', properties: { transcript: ref('Transcript') } }),
          },
          ...transcriptNotFound,
        }),
      },
    },
    '/v1/transcripts/agent/{agentId}/stats': {
      get: {
        summary: "Call statistics of one of the organization's agents",
        parameters: [agentId],
        responses: responses({ '200': { description: 'Stats', ...json(ref('AgentStats')) } }),
      },
    },
  },
};
