/** OpenAPI description of the OCR service, served at /openapi.json and rendered at /docs. */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  withStandardResponses as responses,
} from '@platform/http';

const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const organizationId = (required: boolean) => ({
  name: 'organization_id',
  in: 'query',
  required,
  description:
    "The caller's organization: it must be the organization of the API key (else 404 Organization not found).",
  schema: { type: 'string', minLength: 1, maxLength: 200 },
});
const result = {
  '200': { description: 'The text of every page', ...json({ $ref: '#/components/schemas/ExtractionResult' }) },
};

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
    schemas: {
      ...errorSchemas,
      PageContent: {
        type: 'object',
        required: ['page', 'content'],
        properties: { page: { type: 'integer', minimum: 1 }, content: { type: 'string' } },
      },
      ExtractionResult: {
        type: 'object',
        required: ['id', 'status', 'data', 'total_actions'],
        properties: {
          id: {
            type: 'string',
            pattern: '^[0-9a-f]{24}$',
            description: 'Reads the result again at GET /extract/{id}.',
          },
          status: { type: 'string', enum: ['success'] },
          data: {
            type: 'object',
            description: 'Keyed by page number as a string ("1", "2", …).',
            additionalProperties: { $ref: '#/components/schemas/PageContent' },
          },
          total_actions: {
            type: 'integer',
            description: 'Pages whose text layer was read plus pages run through OCR.',
          },
          page_count: { type: 'integer' },
          ocr_pages: { type: 'array', items: { type: 'integer' }, description: 'Pages read by OCR.' },
          filename: { type: ['string', 'null'] },
          created_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/extract': {
      post: {
        summary: 'Extract the text of a PDF, page by page',
        description:
          'One file field `file` (a PDF, recognised by its bytes), at most 25 MiB and 500 pages. Encrypted, damaged, empty or non-PDF files → 422 ' +
          'with the reason in `type` (pdf_encrypted, pdf_invalid, pdf_truncated, file_empty, pdf_too_many_pages, pdf_time_limit, pdf_memory_limit…).',
        parameters: [
          organizationId(true),
          {
            name: 'ocr',
            in: 'query',
            description: 'auto: OCR the pages without a text layer; off: text layer only; force: OCR every page.',
            schema: { type: 'string', enum: ['auto', 'off', 'force'], default: 'auto' },
          },
        ],
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
        parameters: [
          { name: 'extraction_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' } },
          organizationId(false),
        ],
        responses: { ...responses(result), ...notFoundResponse("Extraction not found (or another organization's)") },
      },
    },
  },
};
