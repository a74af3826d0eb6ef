import { Router, type ErrorRequestHandler } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { TranscriptNotFoundError } from './transcript.errors';
import { agentPath, ingestBody, listQuery, sessionPath } from './transcript.schemas';
import type { TranscriptService } from './transcript.service';

/** The Transcript error body of the OpenAPI document (`TranscriptError`) for a transcript the caller cannot see; every other error goes on. */
const transcriptNotFound: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof TranscriptNotFoundError)) return next(err);
  res.status(404).json(err.body);
};

/** /v1/transcripts routes. */
export function createTranscriptRoutes(service: TranscriptService): Router {
  const r = Router();
  r.post('/v1/transcripts', async (req, res) => {
    const input = validate(ingestBody, req.body, 'body');
    const { created, transcript } = await service.ingest(principalOf(req), input);
    res.status(created ? 201 : 200).json({ transcript });
  });
  r.get('/v1/transcripts', async (req, res) => {
    res.json(await service.list(principalOf(req), validate(listQuery, req.query, 'query')));
  });
  r.get('/v1/transcripts/agent/:agentId/stats', async (req, res) => {
    const { agentId } = validate(agentPath, req.params, 'path');
    res.json(await service.agentStats(principalOf(req), agentId));
  });
  r.get('/v1/transcripts/:sessionId', async (req, res) => {
    const { sessionId } = validate(sessionPath, req.params, 'path');
    res.json({ transcript: await service.get(principalOf(req), sessionId) });
  });
  r.use(transcriptNotFound);
  return r;
}
