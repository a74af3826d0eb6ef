import Joi from 'joi';

import { pageQuery } from '@platform/http';

import { systemPromptVariables } from './prompt-variables.schemas';

/** Webhook payloads become messages, so a message may be as large as the JSON body limit allows. */
const MAX_MESSAGE_CHARS = 1_048_576;

/** Body of POST /v3/inference/chat/. Unknown fields (`user_id`, ...) are dropped: the API key names the owner. */
export const chatBody = Joi.object({
  agent_id: Joi.alternatives(Joi.string().trim().min(1).max(32), Joi.number().integer().min(1)).required(),
  session_id: Joi.string().min(1).max(200).required(),
  message: Joi.string().allow('').max(MAX_MESSAGE_CHARS).required(),
  system_prompt_variables: systemPromptVariables,
});

export const sessionMessagesQuery = Joi.object({
  ...pageQuery,
  agent_id: Joi.string().pattern(/^[1-9][0-9]{0,15}$/),
});

export const sessionPath = Joi.object({ session_id: Joi.string().min(1).max(200).required() });
