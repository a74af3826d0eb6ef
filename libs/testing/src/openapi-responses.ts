/**
 * Checks real responses against the OpenAPI 3.1 document of the service that gave them: the status must be one the
 * operation documents (or one the shared HTTP layer gives on every route) and a JSON body must match its schema
 * (JSON Schema 2020-12, with ajv). Every mismatch is recorded, so a suite can send many requests and fail once.
 */
import type { ValidateFunction } from 'ajv/dist/2020';

import { compileDocumentSchemas, operationTable, rewriteRefs, type OpenApiDocumentLike } from './openapi-document';

export type { OpenApiDocumentLike } from './openapi-document';

export interface ResponseSample {
  /** `GET /v3/agents/{agent_id}` when the caller knows which operation it called; else found from method and path. */
  operation?: string;
  method: string;
  /** The request path (a query string is ignored). */
  path: string;
  status: number;
  contentType?: string;
  /** The body as text (as sent on the wire). */
  body: string;
}

export interface ResponseMismatch {
  operation: string;
  status: number;
  problem: string;
  /** The start of the body, for the report. */
  body: string;
}

export interface ResponseChecker {
  /** Checks one response; returns the mismatch (also recorded) or undefined. */
  check(sample: ResponseSample): ResponseMismatch | undefined;
  /** Every mismatch so far. */
  readonly mismatches: ResponseMismatch[];
  /** `operation → statuses` whose bodies were checked against a documented schema. */
  readonly covered: Map<string, Set<number>>;
  /** Schemas of the document that are not valid JSON Schema 2020-12 (a 3.0 `nullable`, an unknown format, …). */
  readonly schemaProblems: string[];
  /** Every operation of the document as `METHOD /path/{param}`. */
  readonly operations: string[];
  /** True when `value` matches `schema` (a schema of the document, its references resolved or not). */
  conforms(schema: object, value: unknown): boolean;
}

export interface ResponseCheckerOptions {
  /**
   * Statuses the shared HTTP layer can give on any route before the route runs (e.g. 413, 415), with the schema of
   * their body: accepted on an operation that does not list them.
   */
  sharedResponses?: Record<number, object>;
}

/** A checker over `doc`. Compiling its schemas happens here; schemas that fail to compile are listed in schemaProblems. */
export function createResponseChecker(doc: OpenApiDocumentLike, opts: ResponseCheckerOptions = {}): ResponseChecker {
  const { ajv, problems: schemaProblems, compile } = compileDocumentSchemas(doc);
  const { responses, matchers } = operationTable(doc, compile);
  const shared = new Map(
    Object.entries(opts.sharedResponses ?? {}).map(([status, schema]) => [status, compile(`shared ${status}`, schema)]),
  );

  const mismatches: ResponseMismatch[] = [];
  const covered = new Map<string, Set<number>>();

  function check(sample: ResponseSample): ResponseMismatch | undefined {
    const path = sample.path.split('?')[0]!;
    const operation =
      sample.operation ?? matchers.find((m) => m.method === sample.method.toUpperCase() && m.matcher.test(path))?.key;
    const fail = (problem: string): ResponseMismatch => {
      const m = {
        operation: operation ?? `${sample.method.toUpperCase()} ${path}`,
        status: sample.status,
        problem,
        body: sample.body.slice(0, 300),
      };
      mismatches.push(m);
      return m;
    };
    if (!operation) return fail('no documented operation has this method and path');
    const byStatus = responses.get(operation);
    if (!byStatus) return fail('the operation is not in the document');
    const status = String(sample.status);
    const spec = byStatus.get(status) ?? byStatus.get(`${status[0]}XX`) ?? byStatus.get('default');
    let validate: ValidateFunction | undefined;
    if (spec) {
      const type = (sample.contentType ?? '').split(';')[0]!.trim().toLowerCase();
      if (spec.media.length === 0 && sample.body.length > 0)
        return fail(`a body (${type || 'no content type'}) where the document says there is none`);
      if (spec.media.length > 0 && !spec.media.some((m) => m === type || m === '*/*'))
        return fail(`content type "${type}" is not one of ${spec.media.join(', ')}`);
      // An operation answering JSON or a stream (chat completions) has its JSON schema checked on JSON answers only.
      validate = spec.media.length > 1 && !/\bjson\b/.test(type) ? undefined : spec.validate;
    } else if (shared.has(status)) {
      validate = shared.get(status);
    } else {
      return fail(`status ${status} is not documented (documented: ${[...byStatus.keys()].join(', ')})`);
    }
    if (!validate) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(sample.body);
    } catch {
      return fail('the body is not JSON');
    }
    if (!validate(body))
      return fail(`body does not match the schema: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
    const seen = covered.get(operation) ?? new Set<number>();
    seen.add(sample.status);
    covered.set(operation, seen);
    return undefined;
  }

  const compiled = new WeakMap<object, ValidateFunction>();
  const conforms = (schema: object, value: unknown): boolean => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(schema) as object);
      compiled.set(schema, validate);
    }
    return validate(value);
  };

  return { check, mismatches, covered, schemaProblems, operations: [...responses.keys()], conforms };
}

/** A supertest (or superagent) response as a sample: `checker.check(sampleOf(res))`. */
export function sampleOf(res: {
  status: number;
  text?: string;
  headers: Record<string, unknown>;
  req: { method: string; path: string };
}): ResponseSample {
  const type = res.headers['content-type'];
  return {
    method: res.req.method,
    path: res.req.path,
    status: res.status,
    contentType: typeof type === 'string' ? type : undefined,
    body: res.text ?? '',
  };
}
