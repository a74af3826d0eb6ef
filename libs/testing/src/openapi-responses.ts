/**
 * Checks real responses against the OpenAPI 3.1 document of the service that gave them: the status must be one the
 * operation documents (or one the shared HTTP layer gives on every route) and a JSON body must match its schema
 * (JSON Schema 2020-12, with ajv). Every mismatch is recorded, so a suite can send many requests and fail once.
 */
import addFormats from 'ajv-formats';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

type Json = Record<string, unknown>;

/** The parts of an OpenAPI document the checker reads. */
export interface OpenApiDocumentLike {
  openapi?: string;
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}

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

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const REF_BASE = 'urn:openapi:schemas:';
/** Keywords OpenAPI 3.1 adds to JSON Schema. */
const OPENAPI_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs'];
/** OpenAPI's own format names (annotations; nothing to check). */
const OPENAPI_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'];

/** `schema` with every `#/components/schemas/X` reference pointing at the schema registered as X. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Json).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? REF_BASE + v.slice('#/components/schemas/'.length)
        : rewriteRefs(v),
    ]),
  );
}

/** Where `value` uses OpenAPI 3.0's `nullable`, which JSON Schema 2020-12 does not have (ajv would still honour it). */
function nullableUses(value: unknown, at: string, out: string[]): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => nullableUses(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Json)) {
      if (k === 'nullable') out.push(`${at}: "nullable" is OpenAPI 3.0; 3.1 says type: [..., "null"]`);
      else nullableUses(v, `${at}.${k}`, out);
    }
  }
  return out;
}

/** A matcher of concrete paths for a document's path template; literal segments win over parameters. */
function templateMatcher(template: string): { test(path: string): boolean; params: number } {
  const body = template
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (/^\{[^}]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const re = new RegExp(`^${body}/?$`);
  return { test: (path) => re.test(path), params: (template.match(/\{/g) ?? []).length };
}

const opKey = (method: string, template: string) => `${method.toUpperCase()} ${template}`;

interface ResponseSpec {
  media: string[];
  validate?: ValidateFunction;
}

/** A checker over `doc`. Compiling its schemas happens here; schemas that fail to compile are listed in schemaProblems. */
export function createResponseChecker(doc: OpenApiDocumentLike, opts: ResponseCheckerOptions = {}): ResponseChecker {
  const ajv = new Ajv2020({
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    allErrors: true,
  });
  addFormats(ajv);
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  for (const f of OPENAPI_FORMATS) ajv.addFormat(f, true);
  const schemaProblems: string[] = nullableUses({ components: doc.components, paths: doc.paths }, 'document', []);
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    try {
      ajv.addSchema(rewriteRefs(schema) as object, REF_BASE + name);
    } catch (err) {
      schemaProblems.push(`components.schemas.${name}: ${(err as Error).message}`);
    }
  }
  // Added schemas compile when first used: compile each now, so a bad one is reported even if no response names it.
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    try {
      ajv.getSchema(REF_BASE + name);
    } catch (err) {
      schemaProblems.push(`components.schemas.${name}: ${(err as Error).message}`);
    }
  }
  const compile = (where: string, schema: unknown): ValidateFunction | undefined => {
    try {
      return ajv.compile(rewriteRefs(schema) as object);
    } catch (err) {
      schemaProblems.push(`${where}: ${(err as Error).message}`);
      return undefined;
    }
  };
  const specOf = (where: string, response: unknown): ResponseSpec => {
    const content = ((response as Json | undefined)?.content ?? {}) as Record<string, { schema?: unknown }>;
    const json = Object.entries(content).find(([type]) => /\bjson\b/i.test(type));
    return {
      media: Object.keys(content),
      validate: json?.[1].schema !== undefined ? compile(where, json[1].schema) : undefined,
    };
  };

  const responses = new Map<string, Map<string, ResponseSpec>>();
  const matchers: { key: string; method: string; matcher: ReturnType<typeof templateMatcher> }[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const key = opKey(method, template);
      const byStatus = new Map<string, ResponseSpec>();
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json))
        byStatus.set(status, specOf(`${key} ${status}`, response));
      responses.set(key, byStatus);
      matchers.push({ key, method: method.toUpperCase(), matcher: templateMatcher(template) });
    }
  }
  matchers.sort((a, b) => a.matcher.params - b.matcher.params);
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
