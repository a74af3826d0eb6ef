import Joi from 'joi';

import { pageQuery } from '@platform/http';

import { HTTP_METHODS } from './tool.types';

/** Most default headers, query or body parameters a tool keeps. */
export const MAX_DEFAULT_ENTRIES = 50;

const headerName = Joi.string()
  .pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/)
  .max(200);
const defaultHeaders = Joi.object().pattern(headerName, Joi.string().max(8192)).max(MAX_DEFAULT_ENTRIES);
const defaultParams = Joi.object().unknown(true).max(MAX_DEFAULT_ENTRIES);
const endpointDefaults = Joi.object({
  base_url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(2048)
    .allow(null),
}).unknown(true);
const nullable = <T extends Joi.Schema>(s: T) => s.allow(null).empty(null);

/** Body of POST /v3/tools/. */
export const createBody = Joi.object({
  tool_set_name: Joi.string()
    .pattern(/^[a-z0-9_]+$/)
    .min(1)
    .max(100)
    .required(),
  openapi_schema: Joi.object().unknown(true).required(),
  default_headers: nullable(defaultHeaders).default({}),
  default_query_params: nullable(defaultParams).default({}),
  default_body_params: nullable(defaultParams).default({}),
  endpoint_defaults: nullable(endpointDefaults).default({}),
  enhance_descriptions: nullable(Joi.boolean()).default(false),
  openai_api_key: Joi.string().max(4096).allow(null, ''),
}).required();

/** Body of PUT /v3/tools/{tool_id}: the fields given replace the stored ones. */
export const updateBody = Joi.object({
  description: Joi.string().max(4096).allow(''),
  default_headers: defaultHeaders,
  default_query_params: defaultParams,
  default_body_params: defaultParams,
  endpoint_defaults: endpointDefaults,
  openapi_schema: Joi.object().unknown(true),
}).required();

export const toggleQuery = Joi.object({ enabled: Joi.boolean().required() });

export const executeQuery = Joi.object({
  path: Joi.string()
    .pattern(/^\/(?!\/)/)
    .max(4096)
    .required()
    .messages({ 'string.pattern.base': 'path must start with a single "/"' }),
  method: Joi.string()
    .uppercase()
    .valid(...HTTP_METHODS.map((m) => m.toUpperCase()))
    .required(),
});

export const executeBody = Joi.alternatives(Joi.object().unknown(true), Joi.array());

export const listQuery = Joi.object(pageQuery);

export const toolIdPath = Joi.object({ tool_id: Joi.string().min(1).max(300).required() });

/** Most ids one bulk delete takes. */
export const MAX_BULK_DELETE = 100;

/** Body of POST /v3/tools/bulk-delete. */
export const bulkDeleteBody = Joi.object({
  tool_ids: Joi.array().items(Joi.string().min(1).max(300)).min(1).max(MAX_BULK_DELETE).required(),
}).required();
