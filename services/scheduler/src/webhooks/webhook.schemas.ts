import Joi from 'joi';

import { pageQuery } from '@platform/http';

/** Limits of the webhook API (also in the service README). */
export const LIMITS = {
  descriptionLength: 1000,
  bulkIds: 100,
  graceSecondsMax: 604_800,
  graceSecondsDefault: 86_400,
} as const;

const description = Joi.string().allow('', null).max(LIMITS.descriptionLength);

/** POST /agent-webhooks/: server-owned fields are not keys here, so they are dropped. */
export const createBody = Joi.object({
  // Any non-empty string; one that is not an agent id answers 404 Agent not found, as an unknown one does.
  agent_id: Joi.string().min(1).max(100).required(),
  description,
}).required();

/** PATCH /agent-webhooks/{id}: only the description is the client's. */
export const updateBody = Joi.object({ description });

export const listQuery = Joi.object({
  agent_id: Joi.string().min(1).max(100),
  is_active: Joi.boolean(),
  ...pageQuery,
});

/** POST /agent-webhooks/pause-bulk/: a JSON array of id strings; malformed ones are counted, not rejected. */
export const bulkBody = Joi.array().items(Joi.string().allow('')).max(LIMITS.bulkIds).required();

export const regenerateQuery = Joi.object({
  grace_seconds: Joi.number().integer().min(0).max(LIMITS.graceSecondsMax).default(LIMITS.graceSecondsDefault),
});
