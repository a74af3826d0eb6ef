import type Joi from 'joi';
import { ValidationError, type FieldError } from '@platform/errors';

export type Location = 'body' | 'query' | 'path' | 'header';

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

/** Turns a joi error into FastAPI-style field errors under `location`. */
export function toFieldErrors(error: Joi.ValidationError, location: Location): FieldError[] {
  return error.details.map((d) => ({
    loc: [location, ...d.path],
    msg: d.message.replace(/^"[^"]*" /, (m) => (d.path.length ? '' : m)).replace(/^./, (c) => c.toUpperCase()),
    type: TYPE_MAP[d.type] ?? d.type.replace(/\./g, '_'),
  }));
}

/**
 * Validates a request part; returns the converted value or throws a 422 ValidationError listing every invalid
 * field. Unknown keys are dropped (never stored). Bodies are strict about types; query and path strings convert.
 */
export function validate<T>(schema: Joi.Schema<T>, value: unknown, location: Location): T {
  const { value: out, error } = schema.validate(value, {
    abortEarly: false,
    stripUnknown: { objects: true, arrays: false },
    convert: location !== 'body',
    errors: { wrap: { label: false } },
  });
  if (error) throw new ValidationError(toFieldErrors(error, location));
  return out as T;
}
