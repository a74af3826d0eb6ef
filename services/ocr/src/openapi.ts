/**
 * OpenAPI description of the OCR service, served at /openapi.json and rendered at /docs. The JSON shapes come from
 * the joi schemas (`extraction/extraction.schemas.ts`); only route-level facts (summaries, status codes, the multipart
 * upload that multer reads) are written here.
 */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  parametersOf,
  refTo,
  withStandardResponses as responses,
  schemaComponents,
} from '@platform/http';

import {
  extractionPath,
  extractionResult,
  extractQuery,
  pageContent,
  readQuery,
} from './extraction/extraction.schemas';

const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const result = { '200': { description: 'The text of every page', ...json(refTo(extractionResult)) } };

const schemas = schemaComponents({ response: [pageContent, extractionResult] });
export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'OCR service',
    version: '1.0.0',
    description:
      'Extracts the text of each page of an uploaded PDF: the text layer where there is one, OCR (poppler + tesseract) for scanned pages. ' +
      'Results are stored per organization and can be read again.',
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: { ...errorSchemas, ...schemas },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/extract': {
      post: {
        summary: 'Extract the text of a PDF, page by page',
        description:
          'One file field `file` (a PDF, recognised by its bytes), at most 25 MiB and 500 pages. Encrypted, damaged, empty or non-PDF files → 422 ' +
          'with the reason in `type` (pdf_encrypted, pdf_invalid, pdf_truncated, file_empty, pdf_too_many_pages, pdf_time_limit, pdf_memory_limit…).',
        parameters: parametersOf(extractQuery, 'query'),
        // The upload is read by multer (`uploadMiddleware` of @platform/http), not by a joi schema: one file field, `file`.
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: { file: { type: 'string', format: 'binary' } },
              },
            },
          },
        },
        responses: {
          ...responses(result),
          ...notFoundResponse('Organization not found (not the organization of the API key)'),
          '413': error('Request body too large (over 25 MiB)'),
          '415': error('Content-Type must be multipart/form-data'),
          '503': {
            description:
              'Too many documents being read (with Retry-After), OCR not installed (ocr=force), or the database unreachable',
            headers: { 'Retry-After': { schema: { type: 'integer' } } },
            ...json({ $ref: '#/components/schemas/Error' }),
          },
        },
      },
    },
    '/extract/{extraction_id}': {
      get: {
        summary: 'Read an extraction result again',
        parameters: [...parametersOf(extractionPath, 'path'), ...parametersOf(readQuery, 'query')],
        responses: { ...responses(result), ...notFoundResponse("Extraction not found (or another organization's)") },
      },
    },
  },
};
