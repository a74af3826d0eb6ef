/** JSON values for the fuzzer: valid ones derived from a schema, and the bad ones every field must survive. */
import fc from 'fast-check';

import type { JsonSchema } from './openapi-operations';

/** Values known to be meaningful for a field or parameter name (real ids, valid cron expressions, ...). */
export type KnownValues = Record<string, readonly unknown[]>;

/** `arb` once in `oneIn` draws, else undefined. */
export const rarely = <T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: oneIn - 1 }, { arbitrary: arb, weight: 1 });

/** Fields only the server may set (contract §1): a client sending them must change nothing and break nothing. */
export const SERVER_OWNED_FIELDS = [
  'id',
  '_id',
  'user_id',
  'org_id',
  'secret_key',
  'previous_secret',
  'webhook_url',
  'created_at',
  'updated_at',
  'trigger_count',
  'run_count',
  'last_triggered_at',
  'last_trigger_success',
  'last_run_at',
  'last_run_success',
  'next_run_time',
  'is_active',
  'revision',
  'credential_id',
  'tool_ids',
  '__v',
];

const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', '\ude00\ud83d', 'a\ud83d'];

/** A string with U+0000 somewhere in it. */
export const nulString = fc
  .tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }))
  .map(([a, b]) => `${a}\u0000${b}`);

/** A string with a lone UTF-16 surrogate somewhere in it. */
export const surrogateString = fc
  .tuple(fc.string({ maxLength: 20 }), fc.constantFrom(...LONE_SURROGATES), fc.string({ maxLength: 20 }))
  .map(([a, s, b]) => a + s + b);

/** Long strings: around the usual field limits, and far past them. */
export const longString = fc.oneof(
  fc.constantFrom(100, 101, 200, 201, 1000, 1001, 2048, 4097, 8193, 100_001).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => 'é'.repeat(n)),
);

/** Arrays or objects nested `depth` levels deep around a scalar. */
export function nested(depth: number, kind: 'array' | 'object' | 'mixed'): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = kind === 'array' || (kind === 'mixed' && i % 2 === 0) ? [v] : { a: v };
  return v;
}

export const deepValue = fc
  .tuple(fc.integer({ min: 20, max: 2_000 }), fc.constantFrom('array' as const, 'object' as const, 'mixed' as const))
  .map(([depth, kind]) => nested(depth, kind));

/** Many small entries: keys or items by the thousand. */
export const wideValue = fc.oneof(
  fc
    .integer({ min: 100, max: 20_000 })
    .map((n) => Object.fromEntries(Array.from({ length: n }, (_v, i) => [`k${i}`, i]))),
  fc.integer({ min: 100, max: 50_000 }).map((n) => Array.from({ length: n }, (_v, i) => (i % 3 === 0 ? String(i) : i))),
);

const oddKeys = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  '$gt',
  '$where',
  '$set',
  'a.b',
  '.',
  '',
  ' ',
  'toString',
  'hasOwnProperty',
);

/** A key for extra fields: server-owned names, operators and prototype names, and random text. */
export const extraKey = fc.oneof(
  { arbitrary: fc.constantFrom(...SERVER_OWNED_FIELDS), weight: 4 },
  { arbitrary: oddKeys, weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 2 },
  { arbitrary: nulString, weight: 1 },
  { arbitrary: surrogateString, weight: 1 },
);

const badScalar = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -0.5,
    1e308,
    -1e308,
    2 ** 53 + 2,
    '',
    ' ',
    'null',
    '0',
    '-1',
    'true',
    '[]',
    '{}',
    '$gt',
    '*/5 * * * *',
  ),
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any value a field could be given instead of the right one. */
export const badValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: badScalar, weight: 10 },
  { arbitrary: nulString, weight: 3 },
  { arbitrary: surrogateString, weight: 3 },
  { arbitrary: longString, weight: 2 },
  { arbitrary: fc.array(badScalar, { maxLength: 6 }), weight: 3 },
  { arbitrary: fc.dictionary(extraKey, badScalar, { maxKeys: 6 }), weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 3 },
  { arbitrary: deepValue, weight: 1 },
  { arbitrary: wideValue, weight: 1 },
);

const HEX24 = /^\^\[0-9a-f\]\{24\}\$$/;

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.pattern && HEX24.test(schema.pattern)) return fc.stringMatching(/^[0-9a-f]{24}$/);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern), { size: 'xsmall' });
  if (schema.format === 'uri') return fc.webUrl({ validSchemes: ['https', 'http'] });
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  return fc.string({ unit: 'grapheme', maxLength: Math.min(schema.maxLength ?? 40, 40) });
}

/**
 * Values that `schema` accepts (as far as the document says; the services' own rules are stricter in places).
 * `known[name]` takes the place of a generated value half of the time, so that real ids and valid cron expressions
 * reach the code behind validation.
 */
export function schemaValue(schema: JsonSchema, known: KnownValues, name?: string, depth = 0): fc.Arbitrary<unknown> {
  const own = name === undefined ? undefined : known[name];
  const generated = generatedValue(schema, known, depth);
  const value =
    own && own.length > 0
      ? fc.oneof({ arbitrary: fc.constantFrom(...own), weight: 3 }, { arbitrary: generated, weight: 1 })
      : generated;
  return schema.nullable
    ? fc.oneof({ arbitrary: value, weight: 5 }, { arbitrary: fc.constant(null), weight: 1 })
    : value;
}

function generatedValue(schema: JsonSchema, known: KnownValues, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.oneOf) return fc.oneof(...schema.oneOf.map((s) => schemaValue(s, known, undefined, depth + 1)));
  switch (schema.type) {
    case 'object': {
      const props = schema.properties ?? {};
      if (Object.keys(props).length === 0)
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, schemaValue(s, known, k, depth + 1)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    case 'array':
      return fc.array(
        schema.items ? schemaValue(schema.items, known, undefined, depth + 1) : fc.jsonValue({ maxDepth: 1 }),
        {
          maxLength: Math.min(schema.maxItems ?? 5, 5),
        },
      );
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1000,
        max: schema.maximum ?? 1000,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}
