import Joi from 'joi';

/** Contract §8: the largest `max_concurrency` of an agent or a webhook. */
export const MAX_CONCURRENCY = 1000;

/**
 * The `max_concurrency` field of a resource whose runs the worker limits (agents, webhooks): a JSON integer
 * 1–`MAX_CONCURRENCY` (a string such as "2" is refused, not converted) or null (no limit).
 */
export const maxConcurrencyField = (subject: string) =>
  Joi.number()
    .strict()
    .integer()
    .min(1)
    .max(MAX_CONCURRENCY)
    .allow(null)
    .description(
      `Runs of this ${subject} in flight at once across every worker (1–${MAX_CONCURRENCY}); runs over it wait queued, in order. Null or absent: no limit.`,
    );

/** The longest URL a resource may name (an HTTP schedule's `url`, a `callback_url`). */
export const MAX_URL_LENGTH = 2048;

/**
 * A URL the platform calls out to: a string URI with scheme http or https, at most `MAX_URL_LENGTH` characters (a
 * number or any other type is refused, not converted). Where the call may go is checked when it is made (outbound
 * rules: loopback, private and metadata addresses refused unless allow-listed).
 */
export const httpUrlField = () =>
  Joi.string()
    .max(MAX_URL_LENGTH)
    .uri({ scheme: ['http', 'https'] })
    .description('http or https');

/** Limits of a free-form JSON value a client stores: its length as JSON text and its nesting of arrays and objects. */
export interface JsonBounds {
  maxChars: number;
  maxDepth: number;
}

/** Levels of arrays and objects in `value` (a scalar: 0), counted without recursion. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * `schema` bounded for storage: a value longer than `maxChars` as JSON text → 422 `json_too_long`, nested deeper than
 * `maxDepth` levels of arrays and objects (the value itself is the first) → 422 `json_too_deep`. The bounds are
 * named in the field's description.
 */
export function boundedJson<S extends Joi.Schema>(schema: S, { maxChars, maxDepth }: JsonBounds): S {
  const bounded = schema
    .custom((value: unknown, helpers) => {
      if (jsonDepth(value) > maxDepth) return helpers.error('json.too_deep');
      if (JSON.stringify(value).length > maxChars) return helpers.error('json.too_long');
      return value;
    })
    .messages({
      'json.too_deep': `must be nested at most ${maxDepth} levels deep`,
      'json.too_long': `must be at most ${maxChars} characters as JSON`,
    }) as S;
  const said = bounded.describe().flags as { description?: string } | undefined;
  const bounds = `At most ${maxChars} characters as JSON, nesting depth at most ${maxDepth}.`;
  return bounded.description(said?.description ? `${said.description} ${bounds}` : bounds) as S;
}
