import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import {
  deletedDocuments,
  documentIds,
  documentList,
  documentsQuery,
  KNOWLEDGE_LIMITS,
  knowledgePath,
} from './knowledge.schemas';
import type { KnowledgeService } from './knowledge.service';

const NOT_FOUND = 'RAG configuration not found';
const removed = { description: 'Documents removed', body: deletedDocuments };

/** The documents of a knowledge base: list, delete some, reset (each 404 unless the rag id is the caller's). */
export const documentRoutes: Route<KnowledgeService>[] = [
  route({
    method: 'get',
    path: '/v3/rag/documents/{rag_id}/',
    summary: 'List the documents of a knowledge base, newest first',
    operationId: 'listRagDocuments',
    params: knowledgePath,
    query: documentsQuery,
    responses: { '200': { description: 'A page', body: documentList }, '404': NOT_FOUND },
    handle: (knowledge: KnowledgeService, { req, params, query }) =>
      knowledge.list(principalOf(req), params.rag_id, query),
  }),
  route({
    method: 'delete',
    path: '/v3/rag/{rag_id}/docs/',
    summary: 'Delete documents of a knowledge base, with their chunks and vectors',
    description: `A JSON array of at most ${KNOWLEDGE_LIMITS.maxDeleteIds} document ids; ids not found are skipped.`,
    operationId: 'deleteRagDocuments',
    params: knowledgePath,
    body: documentIds,
    responses: { '200': removed, '404': NOT_FOUND },
    handle: (knowledge: KnowledgeService, { req, params, body }) =>
      knowledge.deleteDocuments(principalOf(req), params.rag_id, body),
  }),
  route({
    method: 'delete',
    path: '/v3/rag/{rag_id}/reset/',
    summary: 'Remove every document, chunk and vector of a knowledge base',
    operationId: 'resetRagDocuments',
    params: knowledgePath,
    responses: { '200': removed, '404': NOT_FOUND },
    handle: (knowledge: KnowledgeService, { req, params }) => knowledge.reset(principalOf(req), params.rag_id),
  }),
];
