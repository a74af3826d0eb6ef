import { Router } from 'express';

import { principalOf } from '@platform/auth';
import type { Owner } from '@platform/db';
import { validate } from '@platform/http';

import { startFailures } from '../crawl/refusals';
import { deleteSourcesBody, graphQuery, ragQuery, retrieveQuery, trainBody, trainQuery } from './graph.schemas';
import type { GraphDeleted, TaskQueued, TrainResult } from './graph.schemas.types';
import type { GraphService } from './graph.service';
import type { TrainInput } from './train.types';

/** The two training paths of the OpenAPI document (the store's brand in the path, and without it). */
export const TRAIN_PATHS = ['/v4/knowledge_graph/neo4j/website', '/v4/knowledge_graph/website'];

/** Where an asynchronous training goes (`async=true`): the task service, which sits above this feature. */
export interface TrainingQueue {
  start(owner: Owner, ragId: string, input: TrainInput): Promise<TaskQueued>;
}

/** /v4/knowledge_graph routes of training, graph reads and retrieval (a task's state: `../tasks/task.routes.ts`). */
export function createGraphRoutes(graph: GraphService, queue: TrainingQueue): Router {
  const r = Router();
  r.post(TRAIN_PATHS, async (req, res) => {
    const query = validate(trainQuery, req.query, 'query');
    const input = validate(trainBody, req.body, 'body');
    const owner = principalOf(req);
    if (query.async) {
      res.status(202).json(await queue.start(owner, query.rag_id, input));
      return;
    }
    const result = await graph.train(owner, query.rag_id, input, {}, query.source_id);
    // Nothing trained answers 422 (the crawl rejects); some start URLs failing beside trained ones are listed here.
    const failed = startFailures(input.urls, result.errors).map((f) => ({ url: f.url, reason: f.reason }));
    const answer: TrainResult = {
      message: 'Website trained successfully',
      rag_id: query.rag_id,
      pages_trained: result.pages_trained,
      ...(failed.length > 0 ? { errors: failed } : {}),
    };
    res.json(answer);
  });
  r.get('/v4/knowledge_graph/graph', async (req, res) => {
    const q = validate(graphQuery, req.query, 'query');
    res.json(await graph.graph(principalOf(req), q.rag_id, q.limit));
  });
  r.delete('/v4/knowledge_graph/graph', async (req, res) => {
    const q = validate(ragQuery, req.query, 'query');
    const answer: GraphDeleted = await graph.reset(principalOf(req), q.rag_id);
    res.json(answer);
  });
  r.delete('/v4/knowledge_graph/pages', async (req, res) => {
    const q = validate(ragQuery, req.query, 'query');
    const body = validate(deleteSourcesBody, req.body, 'body');
    const answer: GraphDeleted = await graph.deleteSources(principalOf(req), q.rag_id, body.source_ids);
    res.json(answer);
  });
  r.get('/v4/knowledge_graph/retrieve', async (req, res) => {
    const q = validate(retrieveQuery, req.query, 'query');
    res.json(await graph.retrieve(principalOf(req), q.rag_id, q.query, q.top_k));
  });
  return r;
}
