import type Joi from 'joi';

import { ValidationError, type FieldError } from '@platform/errors';

import { MAX_INPUT_ERRORS } from './input-inspect';
import type { Location } from './location';

export type { Location };

const TYPE_MAP: Record<string, string> = {
  'any.required': 'missing',
  'any.only': 'enum',
  'any.invalid': 'value_error',
  'any.custom': 'value_error',
  custom: 'value_error',
  'string.base': 'string_type',
  'string.empty': 'string_too_short',
  'string.min': 'string_too_short',
  'string.max': 'string_too_long',
  'string.pattern.base': 'string_pattern_mismatch',
  'string.uri': 'url_parsing',
  'string.uriCustomScheme': 'url_scheme',
  'string.hex': 'string_pattern_mismatch',
  'number.base': 'float_type',
  'number.integer': 'int_type',
  'number.unsafe': 'int_type',
  'number.min': 'greater_than_equal',
  'number.max': 'less_than_equal',
  'number.greater': 'greater_than',
  'number.less': 'less_than',
  'boolean.base': 'bool_type',
  'object.base': 'dict_type',
  'array.base': 'list_type',
  'array.max': 'too_long',
  'array.min': 'too_short',
  'date.base': 'datetime_type',
};

/** Longest `msg` of a 422 entry: messages that quote the value sent must not echo a megabyte back. */
export const MAX_ERROR_MESSAGE_CHARS = 500;

const clip = (msg: string) =>
  msg.length > MAX_ERROR_MESSAGE_CHARS ? `${msg.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…` : msg;

/**
 * Turns a joi error into FastAPI-style field errors under `location`: at most MAX_INPUT_ERRORS of them (an array of
 * 50,000 wrong items answers with the first ones, not 50,000 entries).
 */
export function toFieldErrors(error: Joi.ValidationError, location: Location): FieldError[] {
  return error.details.slice(0, MAX_INPUT_ERRORS).map((d) => ({
    loc: [location, ...d.path],
    msg: clip(d.message.replace(/^"[^"]*" /, (m) => (d.path.length ? '' : m)).replace(/^./, (c) => c.toUpperCase())),
    type: TYPE_MAP[d.type] ?? d.type.replace(/\./g, '_'),
  }));
}

/**
 * The value a schema validates to: the type it was declared with (`Joi.object<T>()`, T generated from the schema by
 * `pnpm schemas:types`). A schema declared without one gives `unknown`, never `any`.
 */
export type Validated<S> = S extends Joi.Schema<infer T> ? (0 extends 1 & T ? unknown : T) : never;

/** The schema with the options every check validates with, made once per schema (joi merges options per call). */
const withOptions = [false, true].map((convert) => {
  const made = new WeakMap<Joi.Schema, Joi.Schema>();
  const options: Joi.ValidationOptions = {
    abortEarly: false,
    stripUnknown: { objects: true, arrays: false },
    convert,
    errors: { wrap: { label: false } },
  };
  return (schema: Joi.Schema): Joi.Schema => {
    let bound = made.get(schema);
    if (!bound) made.set(schema, (bound = schema.prefs(options)));
    return bound;
  };
});

/** Validates `value` against `schema` (unknown keys dropped, every fault listed), a 422 under `location` on failure. */
function check<S extends Joi.Schema>(schema: S, value: unknown, location: Location, convert: boolean): Validated<S> {
  const result = withOptions[convert ? 1 : 0]!(schema).validate(value);
  if (result.error) throw new ValidationError(toFieldErrors(result.error, location));
  return result.value as Validated<S>;
}

/**
 * Validates the fields of a multipart/form-data body (beside its file): they are strings, so they convert as a query's
 * do (`"512"` → 512); unknown fields are dropped; errors are reported under `body`. A request whose body had no bytes
 * has no fields (multer leaves no body): validated as an empty form.
 */
export function validateForm<S extends Joi.Schema>(schema: S, value: unknown): Validated<S> {
  return check(schema, value ?? {}, 'body', true);
}

/**
 * Validates a request part; returns the converted value or throws a 422 ValidationError listing every invalid
 * field. Unknown keys are dropped (never stored). Bodies are strict about types; query and path strings convert.
 * A body that is validated is required: a request without one → 422 `missing` at loc ["body"] (a route whose body
 * is optional does not call this without one).
 */
export function validate<S extends Joi.Schema>(schema: S, value: unknown, location: Location): Validated<S> {
  const effective = location === 'body' && value === undefined ? schema.required() : schema;
  return check(effective as S, value, location, location !== 'body');
}
