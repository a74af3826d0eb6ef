import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import { task, taskPath } from './task.schemas';
import type { TaskService } from './task.service';

/**
 * `/v4/knowledge_graph/task/{task_id}` (alias `/v4/knowledge_graph/task/status/{task_id}`, the path some public
 * clients call): the state of an asynchronous training (queued by the training route). A malformed id is simply not
 * found (404), so the path is documented, not checked.
 */
export const taskRoutes: Route<TaskService>[] = [
  route({
    method: 'get',
    path: '/v4/knowledge_graph/task/{task_id}',
    aliases: [
      {
        path: '/v4/knowledge_graph/task/status/{task_id}',
        operationId: 'getTrainingTaskAlias',
        description: 'Same as GET /v4/knowledge_graph/task/{task_id}.',
      },
    ],
    summary: 'State of an asynchronous training',
    operationId: 'getTrainingTask',
    paramsDoc: taskPath,
    responses: { '200': { description: 'The task', body: task }, '404': 'Task not found' },
    handle: (tasks: TaskService, { req }) => tasks.get(principalOf(req), String(req.params.task_id)),
  }),
];
