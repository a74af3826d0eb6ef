/** Bad requests for one operation of an OpenAPI document: path ids, query, body, content type and API key. */
import fc from 'fast-check';

import { badBody, type BodyChoice } from './body-arbitrary';
import { rarely, schemaValue, type KnownValues } from './json-arbitraries';
import { fillPath, opName, type Operation, type Parameter } from './openapi-operations';

/** What the fuzzer knows about the running service: keys, real ids and values that pass validation. */
export interface FuzzContext {
  /** The key of the owner of every fixture: most requests use it, so that validation code is reached. */
  apiKey: string;
  /** Another owner's key, so that the paths for other owners' objects are reached too. */
  otherApiKey: string;
  /** Real ids for a path parameter of an operation (the target decides which may be changed or deleted). */
  pathIds(op: Operation, param: string): readonly string[];
  known: KnownValues;
  /** Headers that make a raw-body operation's request authentic (the webhook trigger's signature), if any. */
  sign?(pathValues: Record<string, string>, body: Buffer): Record<string, string>;
  /** Error lines the service logged since the last call: what a report of a 5xx shows of its cause. */
  newErrorLogs(): string[];
}

export interface FuzzRequest {
  op: string;
  method: string;
  /** Path and query string, already encoded (possibly badly, on purpose). */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What the generator did to this request, for the report. */
  notes: string[];
}

const BAD_PATH_IDS = [
  '%00',
  'a%00b',
  '%00000000000000000000000',
  '%ZZ',
  '%',
  '%E0%A4',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '%2F..%2F..',
  'null',
  'undefined',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '9007199254740993',
  '99999999999999999999999',
  '000000000000000000000000',
  'FFFFFFFFFFFFFFFFFFFFFFFF',
  'ffffffffffffffffffffffffff',
  '%20',
  '__proto__',
  'constructor',
  '$where',
  '%7B%22%24gt%22%3A%22%22%7D',
  'true',
  'pause-bulk',
  'executions',
  'recent',
  'template',
  'openapi',
  'by-agent',
];

/** Ids of the wrong format, with U+0000, bytes that do not decode, very long and unicode ones. */
const badPathId = fc.oneof(
  { arbitrary: fc.constantFrom(...BAD_PATH_IDS), weight: 6 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(encodeURIComponent), weight: 3 },
  { arbitrary: fc.integer({ min: 1_000, max: 8_000 }).map((n) => 'a'.repeat(n)), weight: 1 },
  { arbitrary: fc.integer({ min: 100, max: 1_000 }).map((n) => '%F0%9F%98%80'.repeat(n)), weight: 1 },
);

function pathValue(op: Operation, param: Parameter, ctx: FuzzContext): fc.Arbitrary<string> {
  const ids = ctx.pathIds(op, param.name);
  const wellFormed = schemaValue(param.schema ?? { type: 'string' }, {})
    .map((v) => encodeURIComponent(String(v)))
    .filter((v) => v.length > 0);
  return fc.oneof(
    ...(ids.length > 0 ? [{ arbitrary: fc.constantFrom(...ids).map(encodeURIComponent), weight: 8 }] : []),
    { arbitrary: wellFormed, weight: 2 },
    { arbitrary: badPathId, weight: 4 },
  );
}

const BAD_QUERY_VALUES = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%uD800',
  '%ZZ',
  '%',
  '-1',
  '1.5',
  '1e309',
  'abc',
  'TRUE',
  'yes',
  '',
  '%20',
  '99999999999999999999',
  '[]',
  '{}',
  'null',
];
const JUNK_QUERY_KEYS = [
  '%00',
  'a%00',
  'a%5Bb%5D',
  'a[]',
  '__proto__',
  'constructor',
  '%24gt',
  'x-api-key',
  'api_key',
  'skip',
  'limit',
  'agent_id',
  '%ED%A0%80',
  '',
];

function queryValue(param: Parameter | undefined, ctx: FuzzContext): fc.Arbitrary<string> {
  const valid = param
    ? schemaValue(param.schema ?? { type: 'string' }, ctx.known, param.name).map((v) => encodeURIComponent(String(v)))
    : fc.constant('1');
  return fc.oneof(
    { arbitrary: valid, weight: 5 },
    { arbitrary: fc.constantFrom(...BAD_QUERY_VALUES), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 50 }).map(encodeURIComponent), weight: 2 },
    { arbitrary: fc.integer({ min: 1_000, max: 3_000 }).map((n) => 'q'.repeat(n)), weight: 1 },
  );
}

/** The declared parameters (each maybe left out, maybe repeated) and a few junk ones. */
function queryString(op: Operation, ctx: FuzzContext): fc.Arbitrary<string> {
  const declared = op.query.map((p) =>
    fc.option(
      fc
        .array(queryValue(p, ctx), { minLength: 1, maxLength: 2 })
        .map((vs) => vs.map((v) => `${p.name}=${v}`).join('&')),
      { freq: 3 }, // left out once in three
    ),
  );
  const junkKey = fc.oneof(
    fc.constantFrom(...JUNK_QUERY_KEYS),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  );
  const junk = fc.array(
    fc.tuple(junkKey, queryValue(undefined, ctx)).map(([k, v]) => `${k}=${v}`),
    { maxLength: 3 },
  );
  return fc.tuple(fc.tuple(...declared), junk, fc.boolean()).map(([parts, extra, junkOn]) => {
    const all = [...parts.filter((p): p is string => p !== null), ...(junkOn ? extra : [])];
    return all.length > 0 ? `?${all.join('&')}` : '';
  });
}

const printable = (s: string) => /^[\x20-\x7e]*$/.test(s);

function apiKeyHeader(ctx: FuzzContext): fc.Arbitrary<{ key?: string; note?: string }> {
  const k = ctx.apiKey;
  return fc
    .oneof(
      { arbitrary: fc.constant({ key: k }), weight: 85 },
      { arbitrary: fc.constant({ key: ctx.otherApiKey, note: 'other owner' }), weight: 4 },
      { arbitrary: fc.constant({ note: 'no key' }), weight: 4 },
      {
        // 20,000 characters pass Node's header limit: the answer is the server's own 431.
        arbitrary: fc.constantFrom(
          '',
          'sk_',
          `sk_${'A'.repeat(40)}`,
          'Bearer x',
          'null',
          `${k.slice(0, -1)}`,
          k.toUpperCase(),
          `${k}x`,
          'k'.repeat(5_000),
          'k'.repeat(20_000),
        ),
        weight: 4,
      },
      { arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 200 }).filter(printable), weight: 3 },
    )
    .map((v) => (typeof v === 'string' ? { key: v, note: 'bad key' } : v));
}

const extraHeaders = fc.dictionary(
  fc.constantFrom(
    'x-request-id',
    'accept',
    'x-internal-secret',
    'x-on-behalf-of-user',
    'x-on-behalf-of-org',
    'idempotency-key',
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
    'x-webhook-signature',
    'content-encoding',
  ),
  fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength: 80 }).filter(printable),
    fc.constantFrom('gzip', 'br', 'x-bogus', '1', '*/*', 'sha256=00', 'v1,AAAA', 'k'.repeat(3_000)),
  ),
  { maxKeys: 2 },
);

/** One request against `op`, good in some parts and bad in others. */
export function requestFor(op: Operation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const pathValues = fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, pathValue(op, p, ctx)])));
  const slash = op.path.endsWith('/') ? fc.boolean() : fc.constant(true);
  return fc
    .record({
      pathValues,
      keepSlash: slash,
      query: queryString(op, ctx),
      key: apiKeyHeader(ctx),
      body: badBody(op, ctx.known),
      extra: rarely(extraHeaders, 8),
      signed: fc.boolean(),
      chunked: rarely(fc.constant(true), 15),
    })
    .map(({ pathValues: values, keepSlash, query, key, body, extra, signed, chunked }) => {
      const path = fillPath(op, values);
      const headers: Record<string, string> = { ...(extra ?? {}) };
      if (key.key !== undefined) headers['x-api-key'] = key.key;
      applyBody(headers, body);
      if (op.rawBody && signed && ctx.sign && body.bytes) Object.assign(headers, ctx.sign(values, body.bytes));
      // Node sends a GET or DELETE body unframed unless told: say how the body is framed, always.
      if (body.bytes) {
        if (chunked) headers['transfer-encoding'] = 'chunked';
        else headers['content-length'] = String(body.bytes.length);
      }
      const notes = [...body.notes, ...(key.note ? [key.note] : []), ...(chunked && body.bytes ? ['chunked'] : [])];
      return {
        op: opName(op),
        method: op.method.toUpperCase(),
        url: (keepSlash ? path : path.replace(/\/$/, '')) + query,
        headers,
        body: body.bytes,
        notes,
      };
    });
}

function applyBody(headers: Record<string, string>, body: BodyChoice): void {
  if (body.contentType !== undefined) headers['content-type'] = body.contentType;
  if (body.contentEncoding !== undefined) headers['content-encoding'] = body.contentEncoding;
}
