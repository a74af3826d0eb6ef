import Joi from 'joi';

import { pageQuery } from '@platform/http';
import { MASK } from '@platform/secrets';

import { DEFAULT_CREDENTIAL_TYPE } from './credential.types';

/** Most keys a credential's meta_data may have. */
export const MAX_META_DATA_KEYS = 100;

const name = Joi.string().trim().min(1).max(200);
const providerId = Joi.string().trim().min(1).max(100);
/** A credential type: `llm` (the default), `tool`, `guardrail`, `embedding`, ... as the client names it. */
const type = Joi.string()
  .trim()
  .pattern(/^[A-Za-z0-9_.:-]+$/)
  .min(1)
  .max(50);
/** Largest meta_data, as JSON text: a credential read stays small (the RAG service reads them, capped at 64 KiB). */
export const MAX_META_DATA_CHARS = 16_384;

const metaData = Joi.object()
  .unknown(true)
  .max(MAX_META_DATA_KEYS)
  .custom((value: object, helpers) =>
    JSON.stringify(value).length > MAX_META_DATA_CHARS ? helpers.error('object.size') : value,
  )
  .messages({ 'object.size': `must be at most ${MAX_META_DATA_CHARS} characters as JSON` });
const apiKey = Joi.string().min(1).max(4096);
const baseUrl = Joi.string()
  .uri({ scheme: ['http', 'https'] })
  .max(2048)
  .allow(null);

/** Body of POST /v3/providers/credentials. */
export const createBody = Joi.object({
  name: name.required(),
  provider_id: providerId.required(),
  type: type.allow(null).empty(null).default(DEFAULT_CREDENTIAL_TYPE),
  credentials: Joi.object({ api_key: apiKey.required(), base_url: baseUrl }).required(),
  meta_data: metaData.allow(null).empty(null).default({}),
});

/**
 * Body of PUT /v3/providers/credentials/{id}; a field (or api_key) sent as null keeps its value, base_url null clears it. `user_id`, `credential_id` and
 * `provider_id`, which clients send back with the record, are dropped like every unknown field.
 */
export const updateBody = Joi.object({
  name: name.allow(null).empty(null),
  type: type.allow(null).empty(null),
  credentials: Joi.object({ api_key: apiKey.allow(null).empty(null), base_url: baseUrl.allow(MASK) })
    .allow(null)
    .empty(null),
  meta_data: metaData.allow(null).empty(null),
});

export const listQuery = Joi.object(pageQuery);

export const typePath = Joi.object({ type: type.required() });
export const typeProviderPath = Joi.object({ type: type.required(), provider_id: providerId.required() });
