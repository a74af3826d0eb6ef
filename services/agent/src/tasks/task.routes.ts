import type { Request } from 'express';

import { isInternalCall, principalOf } from '@platform/auth';
import { AppError, NotFoundError } from '@platform/errors';
import { route, type Route } from '@platform/http';

import { asChatInput, chatBody } from '../inference/inference.schemas';
import { failBody, runBody, task, TASK_ID, taskAccepted, taskPath, taskState } from './task.schemas';
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

const NOT_FOUND = 'Task not found';
const internal =
  'Internal: only the worker calls it (x-internal-secret + x-on-behalf-of-user/-org); a valid body from an API key gets 404.';
const submitDescription =
  'The chat body. 202 once the task is stored and queued; the worker runs it. Tasks are kept 7 days.';
const stateAnswer = { description: 'The task after the call', body: taskState };

/**
 * /v3/inference/task (alias /v3/inference/chat/task, the path some public clients call): background chat and the
 * worker's calls that run it. A malformed task id is simply not found (404), so it is documented, not checked.
 */
export const taskRoutes: Route<TaskService>[] = [
  route({
    method: 'post',
    path: '/v3/inference/task/',
    summary: 'Run an agent on a message in the background',
    operationId: 'submitTask',
    description: submitDescription,
    body: chatBody,
    responses: {
      '202': { description: 'Accepted', body: taskAccepted },
      '404': 'Agent not found',
      '503': 'The task queue or the database is unavailable; nothing was accepted',
    },
    aliases: [
      {
        path: '/v3/inference/chat/task',
        operationId: 'submitTaskAlias',
        description: `Same as POST /v3/inference/task/. ${submitDescription}`,
      },
    ],
    handle: (service: TaskService, { req, body }) => service.submit(principalOf(req), asChatInput(body)),
  }),
  route({
    method: 'get',
    path: '/v3/inference/task/{task_id}',
    summary: "A task's state and, once completed, its result",
    operationId: 'getTask',
    paramsDoc: taskPath,
    responses: { '200': { description: 'The task', body: task }, '404': NOT_FOUND },
    aliases: [
      {
        path: '/v3/inference/chat/task/{task_id}',
        operationId: 'getTaskAlias',
        description: 'Same as GET /v3/inference/task/{task_id}.',
      },
    ],
    handle: (service: TaskService, { req }) => service.get(principalOf(req), taskIdOf(req)),
  }),
  // The body is checked first, like every route's: the route is documented, so its answers need not hide it.
  route({
    method: 'post',
    path: '/v3/inference/task/{task_id}/run',
    summary: 'Run one attempt of a task',
    description: internal,
    paramsDoc: taskPath,
    body: runBody,
    bodyOptional: true,
    responses: {
      '200': stateAnswer,
      '404': NOT_FOUND,
      '502': 'Transient failure; the task is queued again',
    },
    handle: (service: TaskService, { req, body }) => {
      const id = internalTaskId(req);
      return service.run(principalOf(req), id, body.final);
    },
  }),
  route({
    method: 'post',
    path: '/v3/inference/task/{task_id}/fail',
    summary: 'End a task the queue gave up on',
    description: internal,
    paramsDoc: taskPath,
    body: failBody,
    responses: { '200': stateAnswer, '404': NOT_FOUND },
    handle: (service: TaskService, { req, body }) => {
      const id = internalTaskId(req);
      return service.giveUp(principalOf(req), id, body.error);
    },
  }),
];
