/**
 * What the agent service reads of the RAI service's verdict (`POST /v1/rai/inference`, the rai service's OpenAPI
 * document, component Evaluation): checked on every answer by the internal-service client.
 */
import Joi from 'joi';

import type { RaiVerdict, RaiViolation } from './rai.schemas.types';

export const raiViolation = Joi.object<RaiViolation>({
  check: Joi.string().required(),
  score: Joi.number(),
  detail: Joi.string().allow('').required(),
}).meta({ className: 'RaiViolation' });

export const raiVerdict = Joi.object<RaiVerdict>({
  allowed: Joi.boolean().required(),
  action: Joi.string().valid('allow', 'redact', 'block').required(),
  text: Joi.string().allow('').required().description("The text with the policy's redactions applied."),
  violations: Joi.array().items(raiViolation).required(),
}).meta({ className: 'RaiVerdict' });
