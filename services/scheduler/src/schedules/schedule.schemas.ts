import Joi from 'joi';

import { pageQuery } from '@platform/http';
import { cronError, isValidTimeZone } from '@platform/scheduling';

/** Limits of the schedule APIs (also in the service README). */
export const LIMITS = {
  messageLength: 100_000,
  nameLength: 200,
  urlLength: 2048,
  headerCount: 50,
  headerValueLength: 8192,
  queryCount: 50,
  queryValueLength: 2048,
  bulkIds: 100,
  timeoutMsMin: 100,
  timeoutMsMax: 30_000,
  timeoutMsDefault: 10_000,
} as const;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

const cron = Joi.string()
  .max(200)
  .custom((value: string, helpers) => {
    const why = cronError(value);
    return why ? helpers.message({ custom: `Invalid cron expression: ${why}` }) : value.trim().split(/\s+/).join(' ');
  });

const timezone = Joi.string()
  .max(64)
  .custom((value: string, helpers) =>
    isValidTimeZone(value) ? value : helpers.message({ custom: `Unknown time zone "${value}"` }),
  );

/** Fields both kinds share; `required` decides whether the cron is required (create) or optional (PATCH). */
function common(create: boolean) {
  const d = <T extends Joi.Schema>(s: T, v: string | number): T => (create ? (s.default(v) as T) : s);
  return {
    cron_expression: create ? cron.required() : cron,
    timezone: d(timezone, 'UTC'),
    max_retries: d(Joi.number().integer().min(0).max(10), 3),
    retry_delay: d(Joi.number().integer().min(1).max(3600), 60),
    overlap_policy: d(Joi.string().valid('skip', 'allow'), 'skip'),
  };
}

const agentId = Joi.string().min(1).max(100);

export const agentCreateBody = Joi.object({
  agent_id: agentId.required(),
  message: Joi.string().allow('').max(LIMITS.messageLength).default(''),
  ...common(true),
}).required();

export const agentUpdateBody = Joi.object({
  agent_id: agentId,
  message: Joi.string().allow('').max(LIMITS.messageLength),
  ...common(false),
});

// RFC 7230 token for header names; values without control characters (no CR/LF header injection).
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
/** Control characters other than tab: a CR or LF in a value would inject headers. */
const hasControlChar = (v: string) => [...v].some((c) => (c < ' ' && c !== '\t') || c === '\u007f');
const headers = Joi.object()
  .pattern(
    Joi.string(),
    Joi.string()
      .max(LIMITS.headerValueLength)
      .custom((v: string, helpers) =>
        hasControlChar(v) ? helpers.message({ custom: 'Header values cannot contain control characters' }) : v,
      ),
  )
  .max(LIMITS.headerCount)
  .custom((value: Record<string, string>, helpers) => {
    const bad = Object.keys(value).find((k) => !headerName.test(k));
    return bad === undefined ? value : helpers.message({ custom: `"${bad}" is not a valid HTTP header name` });
  });
const query = Joi.object()
  .pattern(
    Joi.string().min(1).max(256),
    Joi.alternatives(Joi.string().allow('').max(LIMITS.queryValueLength), Joi.number(), Joi.boolean()),
  )
  .max(LIMITS.queryCount);

function httpFields(create: boolean) {
  const req = <T extends Joi.Schema>(s: T): T => (create ? (s.required() as T) : s);
  return {
    name: req(Joi.string().min(1).max(LIMITS.nameLength)),
    url: req(
      Joi.string()
        .max(LIMITS.urlLength)
        .uri({ scheme: ['http', 'https'] }),
    ),
    method: create
      ? Joi.string()
          .valid(...HTTP_METHODS)
          .default('GET')
      : Joi.string().valid(...HTTP_METHODS),
    // Header names, query names and the body are stored as JSON text: `$filter` and dotted names are fine.
    headers: create ? headers.default({}) : headers,
    query: create ? query.default({}) : query,
    body: Joi.any(),
    timeout_ms: create
      ? Joi.number().integer().min(LIMITS.timeoutMsMin).max(LIMITS.timeoutMsMax).default(LIMITS.timeoutMsDefault)
      : Joi.number().integer().min(LIMITS.timeoutMsMin).max(LIMITS.timeoutMsMax),
    ...common(create),
  };
}

export const httpCreateBody = Joi.object(httpFields(true)).required();
export const httpUpdateBody = Joi.object(httpFields(false));

export const listQuery = Joi.object({ agent_id: agentId, is_active: Joi.boolean(), ...pageQuery });

/** A JSON array of id strings; malformed ones are counted, not rejected. */
export const bulkBody = Joi.array().items(Joi.string().allow('')).max(LIMITS.bulkIds).required();
