/**
 * What the agent service reads of the rag service's retrieval (`GET /v3/rag/{id}/retrieve/`, the rag service's
 * OpenAPI document, component Retrieval): checked on every answer by the internal-service client.
 */
import Joi from 'joi';

import type { Knowledge } from './knowledge-base.schemas.types';

export const knowledge = Joi.object<Knowledge>({
  results: Joi.array()
    .items(
      Joi.object({
        text: Joi.string().allow('').required(),
        url: Joi.string().allow('').required(),
        title: Joi.string().allow('').required(),
        score: Joi.number().required(),
      }).unknown(true),
    )
    .required(),
  facts: Joi.array()
    .items(
      Joi.object({
        source: Joi.string().required(),
        relation: Joi.string().required(),
        target: Joi.string().required(),
        urls: Joi.array().items(Joi.string()).required(),
      }).unknown(true),
    )
    .required(),
}).meta({ className: 'Knowledge' });
