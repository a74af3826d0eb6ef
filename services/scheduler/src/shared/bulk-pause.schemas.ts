/** The wire shapes every bulk pause shares (webhooks, schedules of both kinds). */
import Joi from 'joi';

import type { BulkPauseIds } from './bulk-pause.schemas.types';

/** Most ids one bulk pause takes. */
export const BULK_PAUSE_MAX_IDS = 100;

/** The body: a JSON array of id strings; malformed ones are counted, not rejected. */
export const bulkPauseIds = Joi.array<BulkPauseIds>()
  .items(Joi.string().allow(''))
  .max(BULK_PAUSE_MAX_IDS)
  .required()
  .meta({ className: 'BulkPauseIds' });

/** Keys of every bulk pause's answer: how the requested ids were classified (the paused objects are added beside). */
export const bulkPauseCounts = {
  message: Joi.string().required(),
  total_requested: Joi.number().integer().required(),
  paused_count: Joi.number().integer().required(),
  already_paused_count: Joi.number().integer().required(),
  not_found_count: Joi.number().integer().required(),
  invalid_count: Joi.number().integer().required(),
};
