import type { RequestHandler } from 'express';

import { principalOf } from '@platform/auth';
import {
  jsonContent,
  requireContentType,
  route,
  UNSUPPORTED_MULTIPART_TYPE,
  uploadedFile,
  uploadMiddleware,
  validate,
  type Route,
  type UploadOptions,
} from '@platform/http';

import { extractForm, extractionPath, extractionResult, extractQuery, readQuery } from './extraction.schemas';
import type { ExtractionService } from './extraction.service';

/** What the extraction routes need: the service and how uploads are read. */
export interface ExtractionRouteDeps {
  service: ExtractionService;
  upload: UploadOptions;
}

/** The upload's readers: multipart only; the query and the organization checked before the upload is read. */
function uploadOf({ service, upload }: ExtractionRouteDeps): RequestHandler[] {
  // A wrong request never costs 25 MiB.
  const accept: RequestHandler = (req, _res, next) => {
    service.checkOrganization(principalOf(req), validate(extractQuery, req.query, 'query').organization_id);
    next();
  };
  return [requireContentType(['multipart/form-data'], UNSUPPORTED_MULTIPART_TYPE), accept, uploadMiddleware(upload)];
}

const result = { description: 'The text of every page', body: extractionResult };
const error = jsonContent({ $ref: '#/components/schemas/Error' }).content;

/**
 * POST /extract and GET /extract/{extraction_id}. Served behind the API key check alone (app.ts mounts them as raw
 * routes, the body being multipart, not JSON), so no byte of the body is read before the key is checked. A malformed
 * extraction id is simply not found (404), so that path is documented, not checked.
 */
export const extractionRoutes: Route<ExtractionRouteDeps>[] = [
  route({
    method: 'post',
    path: '/extract',
    summary: 'Extract the text of a PDF, page by page',
    description:
      'One file field `file` (a PDF, recognised by its bytes), at most 25 MiB and 500 pages. Encrypted, damaged, empty or non-PDF files → 422 ' +
      'with the reason in `type` (pdf_encrypted, pdf_invalid, pdf_truncated, file_empty, pdf_too_many_pages, pdf_time_limit, pdf_memory_limit…).',
    query: extractQuery,
    body: extractForm,
    multipart: { file: 'file' },
    responses: {
      '200': result,
      '404': 'Organization not found (not the organization of the API key)',
      '413': 'Request body too large (over 25 MiB)',
      '415': 'Content-Type must be multipart/form-data',
      '503': {
        description:
          'Too many documents being read (with Retry-After), OCR not installed (ocr=force), or the database unreachable',
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
        content: error,
      },
    },
    use: uploadOf,
    handle: ({ service }: ExtractionRouteDeps, { req, query }) => {
      const file = uploadedFile(req, 'a PDF');
      return service.extract(principalOf(req), query.organization_id, query.ocr, file);
    },
  }),
  route({
    method: 'get',
    path: '/extract/{extraction_id}',
    summary: 'Read an extraction result again',
    paramsDoc: extractionPath,
    query: readQuery,
    responses: { '200': result, '404': "Extraction not found (or another organization's)" },
    handle: ({ service }: ExtractionRouteDeps, { req, query }) =>
      service.get(principalOf(req), String(req.params.extraction_id), query.organization_id),
  }),
];
