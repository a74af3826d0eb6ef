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
