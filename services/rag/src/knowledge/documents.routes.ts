import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { documentIds, documentsQuery, knowledgePath } from './knowledge.schemas';
import type { KnowledgeService } from './knowledge.service';

/** The documents of a knowledge base: list, delete some, reset (each 404 unless the rag id is the caller's). */
export function createDocumentRoutes(knowledge: KnowledgeService): Router {
  const r = Router();
  r.get('/v3/rag/documents/:rag_id', async (req, res) => {
    const { rag_id: ragId } = validate(knowledgePath, req.params, 'path');
    res.json(await knowledge.list(principalOf(req), ragId, validate(documentsQuery, req.query, 'query')));
  });
  r.delete('/v3/rag/:rag_id/docs', async (req, res) => {
    const { rag_id: ragId } = validate(knowledgePath, req.params, 'path');
    const ids = validate(documentIds, req.body, 'body');
    res.json(await knowledge.deleteDocuments(principalOf(req), ragId, ids));
  });
  r.delete('/v3/rag/:rag_id/reset', async (req, res) => {
    const { rag_id: ragId } = validate(knowledgePath, req.params, 'path');
    res.json(await knowledge.reset(principalOf(req), ragId));
  });
  return r;
}
