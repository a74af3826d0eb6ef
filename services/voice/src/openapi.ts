/**
 * OpenAPI description of the voice service, served at /openapi.json and rendered at /docs. The shapes come from the
 * joi schemas (`transcripts/transcript.schemas.ts`); only route-level facts (summaries, status codes) are written here.
 */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  parametersOf,
  refTo,
  withStandardResponses as responses,
  schemaComponents,
} from '@platform/http';

import {
  agentPath,
  agentStatsSchema,
  chatItem,
  ingestBody,
  listQuery,
  sessionPath,
  transcriptEnvelope,
  transcriptErrorSchema,
  transcriptListSchema,
  transcriptSchema,
  transcriptSummarySchema,
} from './transcripts/transcript.schemas';

const error = json({ $ref: '#/components/schemas/Error' });
const envelope = json(refTo(transcriptEnvelope));
// A path id that does not decode cleanly never reaches the route: the shared layer's 404 is the platform's Error.
const transcriptNotFound = {
  '404': {
    description: "No such transcript in the caller's organization (also another organization's)",
    ...json({ anyOf: [refTo(transcriptErrorSchema), { $ref: '#/components/schemas/Error' }] }),
  },
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
      ...schemaComponents({
        request: [ingestBody],
        response: [
          transcriptErrorSchema,
          chatItem,
          transcriptSummarySchema,
          transcriptSchema,
          transcriptEnvelope,
          transcriptListSchema,
          agentStatsSchema,
        ],
      }),
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/v1/transcripts': {
      post: {
        summary: 'Store a call transcript (voice runtime); idempotent on sessionId',
        requestBody: json(refTo(ingestBody)),
        responses: responses({
          '201': { description: 'Stored', ...envelope },
          '200': { description: 'A replay: the stored transcript, unchanged', ...envelope },
          '409': { description: 'The session already has a transcript with other content', ...error },
          '413': { description: 'Body over 10 MiB', ...error },
          '415': { description: 'Body is not JSON', ...error },
        }),
      },
      get: {
        summary: "List the organization's transcripts by startedAt",
        parameters: parametersOf(listQuery, 'query'),
        responses: responses({ '200': { description: 'A page', ...json(refTo(transcriptListSchema)) } }),
      },
    },
    '/v1/transcripts/{sessionId}': {
      get: {
        summary: "One transcript of the caller's organization",
        parameters: parametersOf(sessionPath, 'path'),
        responses: responses({ '200': { description: 'The transcript', ...envelope }, ...transcriptNotFound }),
      },
    },
    '/v1/transcripts/agent/{agentId}/stats': {
      get: {
        summary: "Call statistics of one of the organization's agents",
        parameters: parametersOf(agentPath, 'path'),
        responses: responses({ '200': { description: 'Stats', ...json(refTo(agentStatsSchema)) } }),
      },
    },
  },
};
