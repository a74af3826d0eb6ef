/**
 * OpenAPI description of the voice service, served at /openapi.json and rendered at /docs. The paths come from the
 * route table (`transcripts/transcript.routes.ts`), the shapes from the joi schemas (`transcripts/transcript.schemas.ts`).
 */
import { schemaComponents, serviceDocument } from '@platform/http';

import { transcriptRoutes } from './transcripts/transcript.routes';
import {
  agentStatsSchema,
  chatItem,
  ingestBody,
  transcriptEnvelope,
  transcriptErrorSchema,
  transcriptListSchema,
  transcriptSchema,
  transcriptSummarySchema,
} from './transcripts/transcript.schemas';

export const openapi = serviceDocument({
  title: 'Voice service',
  description: "Voice session transcripts of the caller's organization.",
  schemas: schemaComponents({
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
  routes: transcriptRoutes,
});
