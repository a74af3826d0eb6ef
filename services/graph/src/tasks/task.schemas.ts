/**
 * The wire shapes of asynchronous trainings, defined once: the OpenAPI document (`../openapi.ts`) is generated from
 * them and their TypeScript types (`task.schemas.types.ts`) by `pnpm schemas:types`. The 202 answer that queues a
 * task belongs to the training route (`TaskQueued`, `../graph/graph.schemas.ts`).
 */
import Joi from 'joi';

import { crawlError } from '../crawl/crawl.schemas';
import type { Task, TaskPath } from './task.schemas.types';

const timestamp = Joi.string().isoDate();

/** A task's id in the path (documented; a malformed id is simply not found: 404). */
export const taskPath = Joi.object<TaskPath>({
  task_id: Joi.string()
    .pattern(/^[0-9a-f]{24}$/)
    .required(),
}).meta({ className: 'TaskPath' });

/**
 * `GET /v4/knowledge_graph/task/{task_id}`: a task without its owner and input.
 */
export const task = Joi.object<Task>({
  task_id: Joi.string().required(),
  rag_id: Joi.string().required(),
  status: Joi.string().valid('queued', 'running', 'completed', 'failed').required(),
  pages_crawled: Joi.number().integer().min(0).required(),
  pages_trained: Joi.number().integer().min(0).required(),
  errors: Joi.array().items(crawlError).required(),
  error: Joi.string().allow(null).required(),
  attempts: Joi.number().integer().min(0).required(),
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
}).meta({ className: 'Task' });
