import { Router, type Request } from 'express';

import { isInternalCall, principalOf } from '@platform/auth';
import { AppError, NotFoundError } from '@platform/errors';
import { validate } from '@platform/http';

import { asChatInput, chatBody } from '../inference/inference.schemas';
import { failBody, runBody, TASK_ID } from './task.schemas';
import type { TaskService } from './task.service';

/** The task id of the path; an id that cannot name a task is as unknown as a missing one. */
function taskIdOf(req: Request): string {
  const id = String(req.params.task_id);
  if (!TASK_ID.test(id)) throw new NotFoundError('Task');
  return id;
}

/** Routes only the worker (internal path) may call; to anyone else they do not exist. */
function internalTaskId(req: Request): string {
  if (!isInternalCall(req)) throw new AppError(404, 'Not Found'); // as the unknown route it is to them
  return taskIdOf(req);
}

/** /v3/inference/task (alias /v3/inference/chat/task): background chat and the worker's calls that run it. */
export function createTaskRoutes(service: TaskService): Router {
  const r = Router();

  // `/v3/inference/chat/task` is the same endpoint under the path some public clients call.
  r.post(['/v3/inference/task', '/v3/inference/chat/task'], async (req, res) => {
    const input = asChatInput(validate(chatBody, req.body, 'body'));
    res.status(202).json(await service.submit(principalOf(req), input));
  });

  r.get(['/v3/inference/task/:task_id', '/v3/inference/chat/task/:task_id'], async (req, res) => {
    res.json(await service.get(principalOf(req), taskIdOf(req)));
  });

  // The body is checked first, like every route's: the route is documented, so its answers need not hide it.
  r.post('/v3/inference/task/:task_id/run', async (req, res) => {
    const { final } = validate(runBody, req.body ?? {}, 'body');
    const id = internalTaskId(req);
    res.json(await service.run(principalOf(req), id, final));
  });

  r.post('/v3/inference/task/:task_id/fail', async (req, res) => {
    const { error } = validate(failBody, req.body, 'body');
    const id = internalTaskId(req);
    res.json(await service.giveUp(principalOf(req), id, error));
  });

  return r;
}
