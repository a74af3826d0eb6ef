import type { ErrorRequestHandler } from 'express';

import { principalOf } from '@platform/auth';
import { jsonContent, refTo, route, type Route } from '@platform/http';

import { TranscriptNotFoundError } from './transcript.errors';
import {
  agentPath,
  agentStatsSchema,
  ingestBody,
  listQuery,
  sessionPath,
  transcriptEnvelope,
  transcriptErrorSchema,
  transcriptListSchema,
} from './transcript.schemas';
import type { TranscriptService } from './transcript.service';

/**
 * The Transcript error body of the OpenAPI document (`TranscriptError`) for a transcript the caller cannot see; every
 * other error goes on. Mounted right after the transcript routes (`../app.ts`).
 */
export const transcriptNotFound: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof TranscriptNotFoundError)) return next(err);
  res.status(404).json(err.body);
};

/** /v1/transcripts routes (a session id is one path segment: the stats path never reaches `{sessionId}`). */
export const transcriptRoutes: Route<TranscriptService>[] = [
  route({
    method: 'post',
    path: '/v1/transcripts',
    summary: 'Store a call transcript (voice runtime); idempotent on sessionId',
    body: ingestBody,
    responses: {
      '201': { description: 'Stored', body: transcriptEnvelope },
      '200': { description: 'A replay: the stored transcript, unchanged', body: transcriptEnvelope },
      '409': 'The session already has a transcript with other content',
      '413': 'Body over 10 MiB',
      '415': 'Body is not JSON',
    },
    // 201 when stored, 200 for a replay: the handler answers itself.
    handle: async (service: TranscriptService, { req, res, body }) => {
      const { created, transcript } = await service.ingest(principalOf(req), body);
      res.status(created ? 201 : 200).json({ transcript });
    },
  }),
  route({
    method: 'get',
    path: '/v1/transcripts',
    summary: "List the organization's transcripts by startedAt",
    query: listQuery,
    responses: { '200': { description: 'A page', body: transcriptListSchema } },
    handle: (service: TranscriptService, { req, query }) => service.list(principalOf(req), query),
  }),
  route({
    method: 'get',
    path: '/v1/transcripts/{sessionId}',
    summary: "One transcript of the caller's organization",
    params: sessionPath,
    responses: {
      '200': { description: 'The transcript', body: transcriptEnvelope },
      // A path id that does not decode cleanly never reaches the route: the shared layer's 404 is the platform's Error.
      '404': {
        description: "No such transcript in the caller's organization (also another organization's)",
        ...jsonContent({ anyOf: [refTo(transcriptErrorSchema), { $ref: '#/components/schemas/Error' }] }),
      },
    },
    handle: async (service: TranscriptService, { req, params }) => ({
      transcript: await service.get(principalOf(req), params.sessionId),
    }),
  }),
  route({
    method: 'get',
    path: '/v1/transcripts/agent/{agentId}/stats',
    summary: "Call statistics of one of the organization's agents",
    params: agentPath,
    responses: { '200': { description: 'Stats', body: agentStatsSchema } },
    handle: (service: TranscriptService, { req, params }) => service.agentStats(principalOf(req), params.agentId),
  }),
];
