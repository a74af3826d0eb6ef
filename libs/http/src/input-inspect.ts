import { ValidationError, type FieldError } from '@platform/errors';

import type { Location } from './location';

/** Deepest nesting of objects and arrays a JSON body may have; deeper → 422 `json_too_deep`. */
export const MAX_JSON_DEPTH = 64;

/** Most entries one 422 lists (string checks and validate alike), so a body full of bad values gets a bounded answer. */
export const MAX_INPUT_ERRORS = 50;

/** Why a string cannot be stored as sent. */
export type StringFault = 'string_nul' | 'string_unicode';

// Without the `u` flag the pattern sees UTF-16 code units: a high surrogate not followed by a low one, or a low
// one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `string_nul` for U+0000 (PostgreSQL-backed stores reject it, and no store of ours needs it), `string_unicode`
 * for a lone UTF-16 surrogate (no UTF-8 store can keep it faithfully); undefined for a string any store takes.
 */
export function stringFault(s: string): StringFault | undefined {
  if (s.includes('\0')) return 'string_nul';
  if (LONE_SURROGATE.test(s)) return 'string_unicode';
  return undefined;
}

const MESSAGES: Record<StringFault, { value: string; key: string }> = {
  string_nul: {
    value: 'String should not contain the NUL character (U+0000)',
    key: 'Key should not contain the NUL character (U+0000)',
  },
  string_unicode: {
    value: 'String should be valid Unicode (it has a lone UTF-16 surrogate)',
    key: 'Key should be valid Unicode (it has a lone UTF-16 surrogate)',
  },
};

/** One node still to visit; the path is rebuilt from parents only when the node is reported. */
interface Node {
  value: unknown;
  key: string | number | undefined;
  parent: Node | undefined;
  depth: number;
}

function pathOf(node: Node | undefined): (string | number)[] {
  const path: (string | number)[] = [];
  for (let n = node; n && n.key !== undefined; n = n.parent) path.push(n.key);
  return path.reverse();
}

function tooDeep(location: Location): FieldError[] {
  return [
    { loc: [location], msg: `JSON nesting should be at most ${MAX_JSON_DEPTH} levels deep`, type: 'json_too_deep' },
  ];
}

/**
 * Every string (values and object keys) of a parsed JSON value or query that a store could not keep, as 422
 * entries under `location`, at most MAX_INPUT_ERRORS of them; or a single `json_too_deep` entry when objects and
 * arrays nest deeper than MAX_JSON_DEPTH. Iterative, so no input can exhaust the stack.
 */
export function inspectInput(value: unknown, location: Location): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Node[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0 && errors.length < MAX_INPUT_ERRORS) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      const fault = stringFault(v);
      if (fault) errors.push({ loc: [location, ...pathOf(node)], msg: MESSAGES[fault].value, type: fault });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const depth = node.depth + 1;
    if (depth > MAX_JSON_DEPTH) return tooDeep(location);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i] as unknown, key: i, parent: node, depth });
      continue;
    }
    const keys = Object.keys(v);
    for (const key of keys) {
      const fault = stringFault(key);
      if (fault) errors.push({ loc: [location, ...pathOf(node), key], msg: MESSAGES[fault].key, type: fault });
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ value: (v as Record<string, unknown>)[key], key, parent: node, depth });
    }
  }
  return errors.slice(0, MAX_INPUT_ERRORS);
}

/**
 * Parses a raw body as JSON with the checks JSON routes get from createHttpApp, for routes that must read their raw
 * bytes first (a signed webhook): not JSON → 422 `json_invalid`; deeper than MAX_JSON_DEPTH, U+0000 or lone
 * surrogates → 422 as inspectInput says. Any JSON value is accepted at the top, scalars included.
 */
export function parseJsonBytes(bytes: Buffer): unknown {
  let value: unknown;
  try {
    if (bytes.length === 0) throw new Error('empty');
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw ValidationError.field(['body'], 'Body must be valid JSON', 'json_invalid');
  }
  const errors = inspectInput(value, 'body');
  if (errors.length > 0) throw new ValidationError(errors);
  return value;
}
