import Joi from 'joi';

import { pageQuery } from '@platform/http';

const credentialId = Joi.string().trim().min(1).max(200).required();
const name = Joi.string().trim().min(1).max(200).required();

/** Create and replace body: the spec's fields; `user_id` and `id` are dropped (the key names the owner). */
export const ragBody = Joi.object({
  llm_credential_id: credentialId,
  embedding_credential_id: credentialId,
  vector_db_credential_id: credentialId,
  description: Joi.string().max(10_000).allow('', null).empty(null).default(''),
  collection_name: Joi.string()
    .min(1)
    .max(128)
    .pattern(/^[a-z0-9_]+$/)
    .required()
    .messages({ 'string.pattern.base': 'collection_name may contain only lowercase letters, digits and underscores' }),
  llm_model: name,
  embedding_model: name,
  vector_store_provider: name,
  semantic_data_model: Joi.boolean().allow(null).empty(null).default(false),
  meta_data: Joi.object().unknown(true).allow(null).empty(null).default({}),
});

export const listQuery = Joi.object(pageQuery);

/** `GET /v3/rag/user/{user_id}/`: the same id rules as API key owners. */
export const userPath = Joi.object({ user_id: Joi.string().min(1).max(128).required() });
