import Joi from 'joi';

import { pageQuery } from '@platform/http';

// Optional strings accept null: public clients send `description: null`, `examples: null`.
const text = (max = 100_000) => Joi.string().allow('', null).max(max);
const id = () => Joi.string().allow(null).max(200);

const feature = Joi.object({
  type: Joi.string().trim().min(1).max(100).required(),
  config: Joi.object().unknown(true).default({}),
  priority: Joi.number().integer().min(0).max(1000).default(0),
});

const common = {
  name: Joi.string().trim().min(1).max(200).required(),
  description: text(5000),
  features: Joi.array().items(feature).max(50).default([]),
  llm_credential_id: id(),
  provider_id: Joi.string().allow(null).max(100),
  model: Joi.string().allow(null).max(200),
  top_p: Joi.number().min(0).max(1).allow(null),
  temperature: Joi.number().min(0).max(2).allow(null),
  response_format: Joi.object().unknown(true).allow(null),
  agent_goal: text(),
  agent_context: text(),
  agent_output: text(),
  max_iterations: Joi.number().integer().min(1).max(50).allow(null),
  store_messages: Joi.boolean().allow(null),
  tool_configs: Joi.alternatives(Joi.array().max(100), Joi.object().unknown(true)).allow(null),
  additional_model_params: Joi.object().unknown(true).allow(null),
  template_type: Joi.string().allow(null).max(100),
  version: Joi.string().allow(null).max(50),
};

const singleTask = {
  agent_role: text(),
  agent_instructions: text(),
  examples: text(),
  tool: Joi.string().allow('', null).max(300),
  tool_usage_description: text(),
};

/** Body of the single-task template routes. */
export const singleTaskBody = Joi.object({ ...common, ...singleTask });

/**
 * Body of POST /v3/agents/ and PUT /v3/agents/{id}. It also takes the single-task fields, so that a PUT of a
 * single-task agent through the general route does not wipe them.
 */
export const agentBody = Joi.object({
  ...common,
  ...singleTask,
  system_prompt: text(),
  tools: Joi.array().items(Joi.string().max(300)).max(128).default([]),
});

export const listQuery = Joi.object(pageQuery);

/** Path of GET /v3/agents/utility/by-name/{name}: a name as agents store it (trimmed, 1–200 characters). */
export const byNamePath = Joi.object({ name: Joi.string().min(1).max(200).required() });
