import Joi from 'joi';

/** A session UUID in its canonical 8-4-4-4-12 form, any version; stored and looked up in lower case. */
export const SESSION_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const MAX_ID_CHARS = 200;
export const MAX_LIST_LIMIT = 200;

// Bodies are validated without conversion (libs/http), so case and instants are normalized by the service.
const sessionId = Joi.string().pattern(SESSION_ID).messages({ 'string.pattern.base': 'Must be a UUID' });
const agentId = Joi.string().min(1).max(MAX_ID_CHARS);
/** The runtime's item times: epoch seconds (LiveKit's floats) or ISO 8601. */
/** ISO 8601 with a four-digit year: JavaScript dates reach year ±275760, which no client means and JSON dates cannot show. */
const isoInstant = Joi.string()
  .isoDate()
  .pattern(/^\d{4}-/)
  .messages({ 'string.pattern.base': 'Must be an ISO 8601 date-time with a four-digit year' });
const instant = Joi.alternatives().try(Joi.number().min(0), isoInstant);
const text = Joi.string().allow('');

/** The item types whose fields are checked; any other `type` is kept exactly as sent. */
export const KNOWN_ITEM_TYPES = ['message', 'agent_handoff', 'function_call', 'function_call_output'] as const;

const itemBase = { id: Joi.string().max(MAX_ID_CHARS), type: Joi.string().required(), created_at: instant };
const known = (keys: Record<string, Joi.Schema>) => Joi.object({ ...itemBase, ...keys }).unknown(true);

/** One chatHistory item, checked by its `type` (keys beyond the listed ones are kept). */
export const chatItemSchema = Joi.alternatives().conditional('.type', {
  switch: [
    {
      is: 'message',
      then: known({
        role: Joi.string().valid('developer', 'system', 'user', 'assistant').required(),
        content: Joi.array()
          .items(Joi.alternatives().try(text, Joi.object().unknown(true)))
          .required(),
        interrupted: Joi.boolean(),
      }),
    },
    {
      is: 'agent_handoff',
      then: known({ new_agent_id: Joi.string().required(), old_agent_id: Joi.string().allow(null) }),
    },
    {
      is: 'function_call',
      then: known({ call_id: Joi.string().required(), name: Joi.string().required(), arguments: text.required() }),
    },
    {
      is: 'function_call_output',
      then: known({ call_id: Joi.string().required(), name: text, output: text.required(), is_error: Joi.boolean() }),
    },
  ],
  otherwise: Joi.object({ type: Joi.string().min(1).required() }).unknown(true),
});

/** `POST /v1/transcripts`: what the voice runtime sends at the end of a call. Server-owned fields are dropped. */
export const ingestBody = Joi.object({
  sessionId: sessionId.required(),
  agentId: agentId.required(),
  roomName: Joi.string().allow('').max(1000),
  sessionReport: Joi.object().unknown(true),
  chatHistory: Joi.array().items(chatItemSchema),
  closeReason: Joi.string().allow('').max(1000),
  durationMs: Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER),
  messageCount: Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER),
  startedAt: isoInstant,
  endedAt: isoInstant,
});

export const sessionPath = Joi.object({ sessionId: sessionId.required() });
export const agentPath = Joi.object({ agentId: agentId.required() });

/** `GET /v1/transcripts`: contract §6. */
export const listQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(MAX_LIST_LIMIT).default(50),
  offset: Joi.number().integer().min(0).max(1_000_000_000).default(0),
  sort: Joi.string().valid('asc', 'desc').default('desc'),
  agentId,
  from: Joi.date().iso(),
  to: Joi.date()
    .iso()
    .when('from', { is: Joi.exist(), then: Joi.date().min(Joi.ref('from')) })
    .messages({ 'date.min': 'Must not be before from' }),
});
