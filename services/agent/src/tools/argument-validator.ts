import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

import type { JsonObject } from './tool.types';

/** At most this many problems are reported back to the model for one call. */
const MAX_REPORTED_ERRORS = 10;

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, MAX_REPORTED_ERRORS).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})`
        : '';
    return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${extra}`;
  });
}

/**
 * Checks a model's arguments against a tool's JSON schema. Not strict about keywords, since OpenAPI schemas carry
 * their own (`nullable`, `example`, `xml`, custom formats); `nullable` is understood. Compiled schemas are cached
 * per validator (one per agent run), so an updated tool is never checked against its old schema.
 */
export function createArgumentValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false, validateSchema: false });
  addFormats(ajv);
  const cache = new Map<string, ValidateFunction>();
  return {
    /**
     * The problems found, empty when the arguments are valid. A schema Ajv cannot compile refuses every call, so
     * that nothing unchecked reaches the remote API.
     */
    check(key: string, schema: JsonObject, args: unknown): string[] {
      let validate = cache.get(key);
      if (!validate) {
        try {
          validate = ajv.compile(schema);
        } catch (err) {
          return [
            `the tool's argument schema cannot be checked (${err instanceof Error ? err.message.slice(0, 200) : 'invalid'})`,
          ];
        }
        cache.set(key, validate);
      }
      return validate(args) ? [] : describe(validate.errors);
    },
  };
}

export type ArgumentValidator = ReturnType<typeof createArgumentValidator>;
