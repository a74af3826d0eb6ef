/**
 * What the agent service reads of the rag service's answers (the rag service's OpenAPI document): its retrieval
 * (`GET /v3/rag/{id}/retrieve/`, component Retrieval) and a configuration (`GET /v3/rag/{id}/`, component
 * RagConfig), each checked on every answer by the internal-service client.
 */
import Joi from 'joi';

import type { Knowledge, RagSeen } from './knowledge-base.schemas.types';

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

/** What the save-time check reads of a RAG configuration (`GET /v3/rag/{id}/`, component RagConfig): its id. */
export const ragSeen = Joi.object<RagSeen>({ id: Joi.string().required() }).meta({ className: 'RagSeen' });
