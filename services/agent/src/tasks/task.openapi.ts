/** OpenAPI description of inference tasks (contract §7), part of /openapi.json. */
import { jsonContent as json, notFoundResponse, withStandardResponses as responses } from '@platform/http';

const TASK_ID_SCHEMA = { type: 'string', format: 'uuid' };
const taskId = { name: 'task_id', in: 'path', required: true, schema: TASK_ID_SCHEMA };
const internal =
  'Internal: only the worker calls it (x-internal-secret + x-on-behalf-of-user/-org); a valid body from an API key gets 404.';

export const taskSchemas = {
  TaskAccepted: {
    type: 'object',
    required: ['task_id', 'status'],
    properties: { task_id: TASK_ID_SCHEMA, status: { type: 'string', enum: ['queued'] } },
  },
  Task: {
    type: 'object',
    required: ['task_id', 'status', 'created_at', 'updated_at'],
    properties: {
      task_id: TASK_ID_SCHEMA,
      status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
      result: {
        type: 'object',
        required: ['response', 'session_id', 'agent_id'],
        properties: { response: { type: 'string' }, session_id: { type: 'string' }, agent_id: { type: 'string' } },
      },
      error: { type: 'string', description: 'Why it failed, or the last transient failure while it is retried' },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
  TaskState: {
    type: 'object',
    required: ['task_id', 'status'],
    properties: {
      task_id: TASK_ID_SCHEMA,
      status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
    },
  },
};

const taskState = { description: 'The task after the call', ...json({ $ref: '#/components/schemas/TaskState' }) };

export const taskPaths = {
  '/v3/inference/task/': {
    post: {
      summary: 'Run an agent on a message in the background',
      description: 'The chat body. 202 once the task is stored and queued; the worker runs it. Tasks are kept 7 days.',
      requestBody: json({ $ref: '#/components/schemas/ChatBody' }),
      responses: responses({
        '202': { description: 'Accepted', ...json({ $ref: '#/components/schemas/TaskAccepted' }) },
        ...notFoundResponse('Agent not found'),
        '503': {
          description: 'The task queue or the database is unavailable; nothing was accepted',
          ...json({ $ref: '#/components/schemas/Error' }),
        },
      }),
    },
  },
  '/v3/inference/task/{task_id}': {
    get: {
      summary: "A task's state and, once completed, its result",
      parameters: [taskId],
      responses: responses({
        '200': { description: 'The task', ...json({ $ref: '#/components/schemas/Task' }) },
        ...notFoundResponse('Task not found'),
      }),
    },
  },
  '/v3/inference/task/{task_id}/run': {
    post: {
      summary: 'Run one attempt of a task',
      description: internal,
      parameters: [taskId],
      requestBody: {
        required: false,
        ...json({
          type: 'object',
          properties: { final: { type: 'boolean', description: 'A transient failure now ends the task' } },
        }),
      },
      responses: responses({
        '200': taskState,
        ...notFoundResponse('Task not found'),
        '502': {
          description: 'Transient failure; the task is queued again',
          ...json({ $ref: '#/components/schemas/Error' }),
        },
      }),
    },
  },
  '/v3/inference/task/{task_id}/fail': {
    post: {
      summary: 'End a task the queue gave up on',
      description: internal,
      parameters: [taskId],
      requestBody: json({
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'string', minLength: 1, maxLength: 2000 } },
      }),
      responses: responses({ '200': taskState, ...notFoundResponse('Task not found') }),
    },
  },
};
