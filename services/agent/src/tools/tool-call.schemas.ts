/** The wire shape of a tool call as a turn stores it (the session listing shows it); types generated beside it. */
import Joi from 'joi';

import type { ToolCallRecord } from './tool-call.schemas.types';

/** One executed tool call, as stored with the turn. */
export const toolCallRecord = Joi.object<ToolCallRecord>({
  id: Joi.string().required(),
  tool_id: Joi.string().allow(null).required(),
  name: Joi.string().required(),
  arguments: Joi.any().description('As the model gave them: parsed JSON, or the text when it was not JSON'),
  status_code: Joi.number().integer().allow(null).required(),
  error: Joi.string().allow('', null).required(),
  result: Joi.string().allow('').required().description('What the model was given back (truncated)'),
  duration_ms: Joi.number().min(0).required(),
}).meta({ className: 'ToolCallRecord' });
