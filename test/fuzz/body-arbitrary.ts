/** Request bodies for the fuzzer: valid ones, mutated ones, raw bytes that are not JSON, and their media types. */
import fc from 'fast-check';

import {
  badValue,
  deepValue,
  extraKey,
  longString,
  nulString,
  rarely,
  schemaValue,
  surrogateString,
  wideValue,
  type KnownValues,
} from './json-arbitraries';
import type { JsonSchema, Operation } from './openapi-operations';

export interface BodyChoice {
  bytes?: Buffer;
  contentType?: string;
  contentEncoding?: string;
  notes: string[];
}

/** Bodies whose bytes are not the JSON they claim to be. */
const rawText = fc.oneof(
  fc.constantFrom(
    '{"a":',
    '{"a":1}x',
    '{"a" 1}',
    "{'a':1}",
    '[1,2',
    '{"a":1,"a":2}',
    '"string"',
    '42',
    'null',
    'true',
    ' ',
    '\ufeff{"a":1}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"\\u0000":1}',
    '{"a":1e999}',
    '{"a":-0}',
  ),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.integer({ min: 100, max: 200_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 100, max: 100_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
);
const rawBytes = fc.oneof(
  { arbitrary: rawText.map((s) => Buffer.from(s, 'utf8')), weight: 4 },
  // Bytes that are not UTF-8 at all.
  { arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b)), weight: 1 },
);

/** Over the 1 MiB JSON limit of the test apps. */
const oversized = fc
  .integer({ min: 1_048_577, max: 1_300_000 })
  .map((n) => Buffer.from(JSON.stringify({ a: 'x'.repeat(n) })));

const OTHER_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  'text/xml',
  'application/octet-stream',
  'text/json',
  'application/jsonx',
  'json',
  '*/*',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  ';;;',
  'a/b/c',
];

const contentType = fc.oneof(
  { arbitrary: fc.constant<string | undefined>('application/json'), weight: 24 },
  {
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/vnd.fuzz+json',
      'application/merge-patch+json',
      'APPLICATION/JSON',
    ),
    weight: 3,
  },
  { arbitrary: fc.constantFrom(...OTHER_TYPES), weight: 5 },
  { arbitrary: fc.constant(undefined), weight: 2 },
);

const contentEncoding = rarely(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'x-bogus'), 40);

type Mutation = { value: unknown; note: string };

/** A value the schema allows, then changed in one way: a field dropped, mistyped, bad strings, extra fields... */
function mutated(schema: JsonSchema, known: KnownValues): fc.Arbitrary<Mutation> {
  const base = schemaValue(schema, known);
  const props = Object.keys(schema.properties ?? {});
  const fieldOf = props.length > 0 ? fc.constantFrom(...props) : fc.string({ minLength: 1, maxLength: 10 });
  const setField = (note: string, value: fc.Arbitrary<unknown>) =>
    fc
      .tuple(base, fieldOf, value)
      .map(([b, field, v]): Mutation => ({ value: withField(b, field, v), note: `${note} ${field}` }));
  const badString = fc.oneof(nulString, surrogateString);
  return fc.oneof(
    { arbitrary: base.map((value): Mutation => ({ value, note: 'valid' })), weight: 10 },
    { arbitrary: fc.tuple(base, fc.nat()).map(([b, i]): Mutation => dropRequired(b, schema, i)), weight: 5 },
    { arbitrary: setField('wrong type for', badValue), weight: 12 },
    {
      arbitrary: setField(
        'bad string in',
        fc.oneof(
          badString,
          fc.array(badString, { minLength: 1, maxLength: 3 }),
          fc.dictionary(fc.string(), badString, { minKeys: 1, maxKeys: 2 }),
        ),
      ),
      weight: 6,
    },
    { arbitrary: setField('huge', longString), weight: 2 },
    { arbitrary: setField('deep', deepValue), weight: 2 },
    { arbitrary: setField('wide', wideValue), weight: 1 },
    {
      arbitrary: fc
        .tuple(base, fc.dictionary(extraKey, badValue, { minKeys: 1, maxKeys: 5 }))
        .map(([b, extra]): Mutation => ({
          value: isObject(b) ? { ...b, ...extra } : b,
          note: `extra fields ${Object.keys(extra).join(',')}`,
        })),
      weight: 8,
    },
    { arbitrary: badValue.map((value): Mutation => ({ value, note: 'whole body replaced' })), weight: 6 },
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function withField(body: unknown, field: string, value: unknown): unknown {
  if (isObject(body)) return { ...body, [field]: value };
  if (Array.isArray(body)) return [...body, value];
  return { [field]: value };
}

function dropRequired(body: unknown, schema: JsonSchema, i: number): Mutation {
  const required = schema.required ?? [];
  if (!isObject(body) || required.length === 0) return { value: body, note: 'valid' };
  const field = required[i % required.length]!;
  const { [field]: _dropped, ...rest } = body;
  return { value: rest, note: `missing ${field}` };
}

/**
 * The body of one request to `op`: for operations with a JSON body mostly a (mutated) JSON value, else mostly none;
 * sometimes raw bytes, an oversized body, or none at all; with a JSON media type most of the time.
 */
export function badBody(op: Operation, known: KnownValues): fc.Arbitrary<BodyChoice> {
  const json = op.body
    ? mutated(op.body, known)
    : fc.oneof(
        fc.constant<Mutation>({ value: {}, note: 'unexpected body {}' }),
        badValue.map((value): Mutation => ({ value, note: 'unexpected body' })),
      );
  const serialized = json.map((m) => ({ bytes: Buffer.from(JSON.stringify(m.value) ?? 'null'), note: m.note }));
  const choice = fc.oneof(
    { arbitrary: serialized, weight: op.body ? 30 : 4 },
    { arbitrary: rawBytes.map((bytes) => ({ bytes, note: 'raw bytes' })), weight: 4 },
    { arbitrary: oversized.map((bytes) => ({ bytes, note: 'oversized' })), weight: 1 },
    { arbitrary: fc.constant({ bytes: undefined, note: 'no body' }), weight: op.body ? 3 : 20 },
  );
  return fc.tuple(choice, contentType, contentEncoding).map(([c, type, encoding]): BodyChoice => {
    const notes = [
      c.note,
      ...(type === 'application/json' ? [] : [`content-type ${String(type)}`]),
      ...(encoding ? [`encoding ${encoding}`] : []),
    ];
    // No body and no media type is how most clients call operations without a body.
    return c.bytes
      ? { bytes: c.bytes, contentType: type, contentEncoding: encoding, notes }
      : { contentType: type === 'application/json' ? undefined : type, notes };
  });
}
