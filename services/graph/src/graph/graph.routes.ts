import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import type { TaskService } from '../tasks/task.service';
import { graphQuery, retrieveQuery, trainBody, trainQuery } from './graph.schemas';
import type { GraphService } from './graph.service';
import type { TrainInput } from './train.types';

/** The two training paths of contract §6 (the store's brand in the path, and without it). */
export const TRAIN_PATHS = ['/v4/knowledge_graph/neo4j/website', '/v4/knowledge_graph/website'];

/** /v4/knowledge_graph routes. */
export function createGraphRoutes(graph: GraphService, tasks: TaskService): Router {
  const r = Router();
  r.post(TRAIN_PATHS, async (req, res) => {
    const query = validate<{ rag_id: string; async: boolean }>(trainQuery, req.query, 'query');
    const input = validate<TrainInput>(trainBody, req.body, 'body');
    const owner = principalOf(req);
    if (query.async) {
      res.status(202).json(await tasks.start(owner, query.rag_id, input));
      return;
    }
    const result = await graph.train(owner, query.rag_id, input);
    res.json({ message: 'Website trained successfully', rag_id: query.rag_id, pages_trained: result.pages_trained });
  });
  r.get('/v4/knowledge_graph/task/:id', async (req, res) => {
    res.json(await tasks.get(principalOf(req), req.params.id));
  });
  r.get('/v4/knowledge_graph/graph', async (req, res) => {
    const q = validate<{ rag_id: string; limit: number }>(graphQuery, req.query, 'query');
    res.json(await graph.graph(principalOf(req), q.rag_id, q.limit));
  });
  r.get('/v4/knowledge_graph/retrieve', async (req, res) => {
    const q = validate<{ rag_id: string; query: string; top_k: number }>(retrieveQuery, req.query, 'query');
    res.json(await graph.retrieve(principalOf(req), q.rag_id, q.query, q.top_k));
  });
  return r;
}
