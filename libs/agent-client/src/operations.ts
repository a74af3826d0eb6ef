import Joi from 'joi';

import { siblingOperation } from '@platform/service-client';

/** An agent, read to learn whether the caller owns it (only the status is used). */
export const AGENT_READ = siblingOperation({
  service: 'agent',
  method: 'GET',
  path: '/v3/agents/{agent_id}',
  response: Joi.object(),
});

/** One inference of an agent: the worker reads its `response` (a string by the document; anything else is kept). */
export const AGENT_CHAT = siblingOperation({
  service: 'agent',
  method: 'POST',
  path: '/v3/inference/chat/',
  response: Joi.object({ response: Joi.any() }),
});

/** A task's state after one attempt or after it was ended: the worker reads `status`. */
const taskState = Joi.object<{ status: string }>({ status: Joi.string().required() });

export const TASK_RUN = siblingOperation({
  service: 'agent',
  method: 'POST',
  path: '/v3/inference/task/{task_id}/run',
  response: taskState,
});

export const TASK_FAIL = siblingOperation({
  service: 'agent',
  method: 'POST',
  path: '/v3/inference/task/{task_id}/fail',
  response: taskState,
});
