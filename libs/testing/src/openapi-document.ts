/**
 * An OpenAPI 3.1 document read for the response checker (openapi-responses.ts): its schemas compiled with ajv (JSON
 * Schema 2020-12), and its operations by method and path template with the responses each documents.
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

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const REF_BASE = 'urn:openapi:schemas:';
/** Keywords OpenAPI 3.1 adds to JSON Schema. */
const OPENAPI_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs'];
/** OpenAPI's own format names (annotations; nothing to check). */
const OPENAPI_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'];

/** `schema` with every `#/components/schemas/X` reference pointing at the schema registered as X. */
export function rewriteRefs(value: unknown): unknown {
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

/** A documented response: its media types, and the validator of its JSON body when it has a schema. */
export interface ResponseSpec {
  media: string[];
  validate?: ValidateFunction;
}

/** The document's schemas in ajv, with a compiler of further schemas; every schema that fails is in `problems`. */
export interface DocumentSchemas {
  ajv: Ajv2020;
  /** Schemas of the document that are not valid JSON Schema 2020-12 (a 3.0 `nullable`, an unknown format, …). */
  problems: string[];
  /** `schema` compiled (its references resolved); undefined, and listed in `problems` as `where`, when it fails. */
  compile: (where: string, schema: unknown) => ValidateFunction | undefined;
}

/** An ajv holding every `components.schemas` entry of `doc`, each compiled now. */
export function compileDocumentSchemas(doc: OpenApiDocumentLike): DocumentSchemas {
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
  const problems: string[] = nullableUses({ components: doc.components, paths: doc.paths }, 'document', []);
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    try {
      ajv.addSchema(rewriteRefs(schema) as object, REF_BASE + name);
    } catch (err) {
      problems.push(`components.schemas.${name}: ${(err as Error).message}`);
    }
  }
  // Added schemas compile when first used: compile each now, so a bad one is reported even if no response names it.
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    try {
      ajv.getSchema(REF_BASE + name);
    } catch (err) {
      problems.push(`components.schemas.${name}: ${(err as Error).message}`);
    }
  }
  const compile = (where: string, schema: unknown): ValidateFunction | undefined => {
    try {
      return ajv.compile(rewriteRefs(schema) as object);
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
      return undefined;
    }
  };
  return { ajv, problems, compile };
}

/** The operations of a document: responses by operation and status, and matchers of concrete paths. */
export interface OperationTable {
  /** `METHOD /path/{param}` → status (`200`, `4XX`, `default`) → its response. */
  responses: Map<string, Map<string, ResponseSpec>>;
  /** The operation of a method and concrete path: fewest parameters first. */
  matchers: { key: string; method: string; matcher: ReturnType<typeof templateMatcher> }[];
}

/** Every operation of `doc` with its documented responses, their JSON schemas compiled with `compile`. */
export function operationTable(doc: OpenApiDocumentLike, compile: DocumentSchemas['compile']): OperationTable {
  const specOf = (where: string, response: unknown): ResponseSpec => {
    const content = ((response as Json | undefined)?.content ?? {}) as Record<string, { schema?: unknown }>;
    const json = Object.entries(content).find(([type]) => /\bjson\b/i.test(type));
    return {
      media: Object.keys(content),
      validate: json?.[1].schema !== undefined ? compile(where, json[1].schema) : undefined,
    };
  };

  const responses = new Map<string, Map<string, ResponseSpec>>();
  const matchers: OperationTable['matchers'] = [];
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
  return { responses, matchers };
}
