import { Router } from 'express';

import { principalOf } from '@platform/auth';

import type { TaskService } from './task.service';

/**
 * `/v4/knowledge_graph/task/{task_id}` (alias `/v4/knowledge_graph/task/status/{task_id}`, the path some public
 * clients call): the state of an asynchronous training (queued by the training route).
 */
export function createTaskRoutes(tasks: TaskService): Router {
  const r = Router();
  r.get(['/v4/knowledge_graph/task/:id', '/v4/knowledge_graph/task/status/:id'], async (req, res) => {
    res.json(await tasks.get(principalOf(req), String(req.params.id)));
  });
  return r;
}
