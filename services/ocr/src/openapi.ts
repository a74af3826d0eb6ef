/**
 * OpenAPI description of the OCR service, served at /openapi.json and rendered at /docs. The paths come from the
 * route table (`extraction/extraction.routes.ts`), the JSON shapes from the joi schemas
 * (`extraction/extraction.schemas.ts`).
 */
import { schemaComponents, serviceDocument } from '@platform/http';

import { extractionRoutes } from './extraction/extraction.routes';
import { extractionResult, pageContent } from './extraction/extraction.schemas';

export const openapi = serviceDocument({
  title: 'OCR service',
  description:
    'Extracts the text of each page of an uploaded PDF: the text layer where there is one, OCR (poppler + tesseract) for scanned pages. ' +
    'Results are stored per organization and can be read again.',
  schemas: schemaComponents({ response: [pageContent, extractionResult] }),
  routes: extractionRoutes,
});
