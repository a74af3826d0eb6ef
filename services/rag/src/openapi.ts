/**
 * OpenAPI description of the rag service, served at /openapi.json and rendered at /docs. The paths come from the
 * route tables, the shapes from the joi schemas (`rag/rag.schemas.ts`, `knowledge/knowledge.schemas.ts`).
 */
import { schemaComponents, serviceDocument } from '@platform/http';

import { documentRoutes } from './knowledge/documents.routes';
import {
  deletedDocuments,
  documentIds,
  documentList,
  trainResult,
  trainTextBody,
  trainWebsiteBody,
} from './knowledge/knowledge.schemas';
import { trainingRoutes } from './knowledge/training.routes';
import { ragRoutes } from './rag/rag.routes';
import { ragBody, ragConfig, ragList, ragPatch, retrieval } from './rag/rag.schemas';
import { retrieveRoutes } from './rag/retrieve.routes';

export const openapi = serviceDocument({
  title: 'RAG service',
  description: 'Retrieval configurations binding LLM, embedding and vector-store credentials.',
  schemas: schemaComponents({
    request: [trainTextBody, trainWebsiteBody, documentIds, ragBody, ragPatch],
    response: [trainResult, documentList, deletedDocuments, ragConfig, ragList, retrieval],
  }),
  routes: [...trainingRoutes, ...documentRoutes, ...ragRoutes, ...retrieveRoutes],
});
