import Joi from 'joi';

/** Task ids are UUIDs; anything else cannot name a task (→ 404, not 422, like every unknown id). */
export const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const runBody = Joi.object({ final: Joi.boolean().default(false) });
export const failBody = Joi.object({ error: Joi.string().min(1).max(2000).required() });
