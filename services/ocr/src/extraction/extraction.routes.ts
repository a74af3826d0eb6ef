import { Router, type RequestHandler } from 'express';

import { principalOf } from '@platform/auth';
import {
  requireContentType,
  UNSUPPORTED_MULTIPART_TYPE,
  uploadedFile,
  uploadMiddleware,
  validate,
  type UploadOptions,
} from '@platform/http';

import { extractQuery, readQuery } from './extraction.schemas';
import type { ExtractionService } from './extraction.service';

/**
 * POST /extract and GET /extract/{id}. Mounted as a raw route (the body is multipart, not JSON), so it applies the
 * API key check itself, first, before a byte of the body is read.
 */
export function createExtractionRoutes(
  service: ExtractionService,
  auth: RequestHandler,
  upload: UploadOptions,
): Router {
  const r = Router();
  r.use('/extract', auth);
  // The query and the organization are checked before the upload is read: a wrong request never costs 25 MiB.
  const accept: RequestHandler = (req, _res, next) => {
    service.checkOrganization(principalOf(req), validate(extractQuery, req.query, 'query').organization_id);
    next();
  };
  const multipart = requireContentType(['multipart/form-data'], UNSUPPORTED_MULTIPART_TYPE);
  r.post('/extract', multipart, accept, uploadMiddleware(upload), async (req, res) => {
    const query = validate(extractQuery, req.query, 'query');
    const file = uploadedFile(req, 'a PDF');
    res.json(await service.extract(principalOf(req), query.organization_id, query.ocr, file));
  });
  r.get('/extract/:extractionId', async (req, res) => {
    const query = validate(readQuery, req.query, 'query');
    res.json(await service.get(principalOf(req), req.params.extractionId, query.organization_id));
  });
  return r;
}
