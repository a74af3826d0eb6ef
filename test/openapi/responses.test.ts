/**
 * Responses match the documents: each service with a fuzz target (`test/fuzz/<service>-target.ts`: the real app on
 * FerretDB and Redis, with fixtures and real ids) is sent, for every operation of its document, requests made valid
 * from the operation's own schemas (real ids, the owner's key), the same without a key, and generated bad ones; every
 * answer's status must be documented for that operation (or be one the shared layer gives on any route) and its JSON
 * body must match the documented schema (ajv, JSON Schema 2020-12). A planted mismatch proves the check bites.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';

import { createResponseChecker, type ResponseChecker } from '@platform/testing';

import { closeConnections, send } from '../fuzz/fuzz-runner';
import { schemaValue } from '../fuzz/json-arbitraries';
import { fillPath, operationsOf, opName, type JsonSchema, type Operation } from '../fuzz/openapi-operations';
import { requestFor, type FuzzRequest } from '../fuzz/request-arbitrary';
import type { Target } from '../fuzz/target-kit';
import { SHARED_RESPONSES } from './shared-responses';

const FUZZ_DIR = join(__dirname, '..', 'fuzz');
/** Services with a fuzz target, by file name. */
const TARGETS = readdirSync(FUZZ_DIR)
  .filter((f) => f.endsWith('-target.ts'))
  .map((f) => f.replace(/-target\.ts$/, ''))
  .sort();
const SEED = 20_260_101;
const VALID_PER_OPERATION = 4;
const GENERATED_PER_OPERATION = 10;
const TIMEOUT_MS = 10_000;

/** The document's schema in the form the fuzzer's generators read: a 3.1 `type: [t, "null"]` as `type: t, nullable`. */
function toGeneratorSchema(schema: unknown): JsonSchema {
  if (Array.isArray(schema)) return schema.map(toGeneratorSchema) as unknown as JsonSchema;
  if (!schema || typeof schema !== 'object') return schema as JsonSchema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type' && Array.isArray(v)) {
      const types = v.filter((t) => t !== 'null');
      if (types.length === 1) out.type = types[0];
      if (v.includes('null')) out.nullable = true;
    } else out[k] = typeof v === 'object' ? toGeneratorSchema(v) : v;
  }
  return out as JsonSchema;
}

/**
 * Requests made valid from `op`'s schemas: real path ids, declared query values, a body drawn from the body schema
 * and kept only when it matches that schema (the generators' strings need not honour every format).
 */
function validRequest(op: Operation, t: Target, checker: ResponseChecker, withKey: boolean): fc.Arbitrary<FuzzRequest> {
  const ids = Object.fromEntries(op.pathParams.map((p) => [p.name, t.ctx.pathIds(op, p.name)]));
  const pathValues = fc.record(
    Object.fromEntries(
      op.pathParams.map((p) => [p.name, ids[p.name]!.length > 0 ? fc.constantFrom(...ids[p.name]!) : fc.constant('1')]),
    ),
  );
  const query = fc.tuple(
    ...op.query.map((p) =>
      fc.option(
        schemaValue(toGeneratorSchema(p.schema ?? { type: 'string' }), t.ctx.known, p.name).map(
          (v) => `${p.name}=${encodeURIComponent(String(v))}`,
        ),
      ),
    ),
  );
  const body = op.body
    ? schemaValue(toGeneratorSchema(op.body), t.ctx.known)
        .filter((v) => checker.conforms(op.body!, v))
        .map((v) => Buffer.from(JSON.stringify(v)))
    : fc.constant(undefined);
  return fc.record({ values: pathValues, query, body }).map(({ values, query: q, body: b }) => {
    const headers: Record<string, string> = withKey ? { 'x-api-key': t.ctx.apiKey } : {};
    if (b) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(b.length) });
    const parts = q.filter((x): x is string => x !== null);
    const path = fillPath(op, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, encodeURIComponent(v)])));
    return {
      op: opName(op),
      method: op.method.toUpperCase(),
      url: path + (parts.length ? `?${parts.join('&')}` : ''),
      headers,
      body: b,
      notes: [],
    };
  });
}

/** Deletes last, so the objects the other operations read are still there. */
const byMethod = (a: Operation, b: Operation) => Number(a.method === 'delete') - Number(b.method === 'delete');

async function drive(t: Target, checker: ResponseChecker): Promise<number> {
  let sent = 0;
  for (const op of operationsOf(t.doc).sort(byMethod)) {
    const requests = [
      ...(op.rawBody
        ? []
        : fc.sample(validRequest(op, t, checker, true), { seed: SEED, numRuns: VALID_PER_OPERATION })),
      ...(op.secured ? fc.sample(validRequest(op, t, checker, false), { seed: SEED, numRuns: 1 }) : []),
      ...fc.sample(requestFor(op, t.ctx), { seed: SEED, numRuns: GENERATED_PER_OPERATION }),
    ];
    for (const req of requests) {
      const res = await send(t.port, req, TIMEOUT_MS);
      sent++;
      // The HTTP parser's own answers (431 for a header over Node's limit) come before any express code.
      if (res.status === 431) continue;
      checker.check({
        operation: req.op,
        method: req.method,
        path: req.url,
        status: res.status,
        contentType: res.contentType,
        body: res.body,
      });
    }
  }
  return sent;
}

afterAll(() => closeConnections());

describe.each(TARGETS)('%s', (service) => {
  let target: Target | undefined;
  beforeAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(join(FUZZ_DIR, `${service}-target.ts`)) as Record<string, () => Promise<Target>>;
    const start = Object.entries(mod).find(([name]) => /^start\w*Target$/.test(name))?.[1];
    if (!start) throw new Error(`test/fuzz/${service}-target.ts exports no start…Target`);
    target = await start();
  }, 180_000);
  afterAll(async () => {
    await target?.close();
  }, 60_000);

  test('every answer to valid, keyless and generated requests is documented and matches its schema', async () => {
    const t = target!;
    const checker = createResponseChecker(t.doc as never, { sharedResponses: SHARED_RESPONSES });
    const sent = await drive(t, checker);
    const successes = [...checker.covered.values()].reduce(
      (n, statuses) => n + [...statuses].filter((s) => s < 300).length,
      0,
    );
    process.stdout.write(
      `${service}: ${sent} requests, ${checker.covered.size}/${checker.operations.length} operations with a checked body, ${successes} success statuses checked\n`,
    );
    expect(checker.schemaProblems).toEqual([]);
    // One line per operation, status and kind of problem: the bodies are in the checker's records.
    const distinct = [
      ...new Set(checker.mismatches.map((m) => `${m.operation} → ${m.status}: ${m.problem.slice(0, 160)}`)),
    ];
    expect(distinct).toEqual([]);
    expect(successes).toBeGreaterThan(0);
  }, 300_000);
});

describe('the check itself', () => {
  const doc = {
    openapi: '3.1.0',
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'string' }, note: { type: ['string', 'null'] } },
        },
      },
    },
    paths: {
      '/things/{id}': {
        get: {
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
            },
            '204': { description: 'nothing' },
          },
        },
      },
    },
  };

  test('a body that breaks its schema, an undocumented status, a body where none is documented and an unknown path are each caught', () => {
    const c = createResponseChecker(doc);
    const get = { method: 'GET', path: '/things/a1', contentType: 'application/json' };
    expect(c.check({ ...get, status: 200, body: '{"id":"a1","note":null}' })).toBeUndefined();
    expect(c.check({ ...get, status: 200, body: '{"id":1}' })?.problem).toMatch(/body\/id must be string/);
    expect(c.check({ ...get, status: 200, body: '{"note":"x"}' })?.problem).toMatch(/must have required property 'id'/);
    expect(c.check({ ...get, status: 500, body: '{"detail":"x"}' })?.problem).toMatch(/status 500 is not documented/);
    expect(c.check({ ...get, status: 204, body: '{}' })?.problem).toMatch(/a body/);
    expect(c.check({ ...get, path: '/others/1', status: 200, body: '{}' })?.problem).toMatch(/no documented operation/);
    expect(c.mismatches).toHaveLength(5);
    expect(c.covered.get('GET /things/{id}')).toEqual(new Set([200]));
  });

  test('an OpenAPI 3.0 keyword in a schema is reported as a schema problem', () => {
    const c = createResponseChecker({ ...doc, components: { schemas: { Thing: { type: 'string', nullable: true } } } });
    expect(c.schemaProblems).toEqual([expect.stringMatching(/Thing: "nullable" is OpenAPI 3.0/)]);
  });
});
