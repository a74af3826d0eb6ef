/** The operations of a service's OpenAPI document, with $refs resolved: what the fuzzer and the 415 test iterate. */

/** The part of JSON Schema (OpenAPI 3.0 dialect) the documents use. */
export interface JsonSchema {
  $ref?: string;
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  oneOf?: JsonSchema[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
  nullable?: boolean;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Operation {
  method: HttpMethod;
  /** The document's path template, e.g. `/agent-webhooks/{webhook_id}`. */
  path: string;
  pathParams: Parameter[];
  query: Parameter[];
  /** The JSON request body's schema, when the operation takes one. */
  body?: JsonSchema;
  /** True when the document says the body may be left out (`required: false`). */
  bodyOptional: boolean;
  /** True when the operation reads its body as raw bytes of any media type (its content lists the any-type range), not as JSON. */
  rawBody: boolean;
  /** False for operations the document marks `security: []` (no API key). */
  secured: boolean;
}

interface RawOperation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  security?: unknown[];
}

export interface OpenApiDocument {
  paths: Record<string, Partial<Record<HttpMethod, RawOperation>>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

/** `schema` with every internal `$ref` replaced by its target (the documents have no cycles). */
export function resolveSchema(schema: JsonSchema, doc: OpenApiDocument, depth = 0): JsonSchema {
  if (depth > 20) throw new Error('$ref nesting deeper than 20: a cycle?');
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved ${schema.$ref}`);
    return resolveSchema(target, doc, depth + 1);
  }
  const out: JsonSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [k, resolveSchema(v, doc, depth + 1)]),
    );
  }
  if (schema.items) out.items = resolveSchema(schema.items, doc, depth + 1);
  if (schema.oneOf) out.oneOf = schema.oneOf.map((s) => resolveSchema(s, doc, depth + 1));
  return out;
}

/** Every operation of `doc`, in document order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const raw = item[method];
      if (!raw) continue;
      const params = raw.parameters ?? [];
      const content = raw.requestBody?.content ?? {};
      const jsonSchema = content['application/json']?.schema;
      ops.push({
        method,
        path,
        pathParams: params.filter((p) => p.in === 'path'),
        query: params.filter((p) => p.in === 'query'),
        body: jsonSchema ? resolveSchema(jsonSchema, doc) : undefined,
        bodyOptional: raw.requestBody?.required === false,
        rawBody: '*/*' in content,
        secured: !(Array.isArray(raw.security) && raw.security.length === 0),
      });
    }
  }
  return ops;
}

/** `op`'s path with each `{param}` replaced by `values[param]` (already URL-encoded by the caller). */
export function fillPath(op: Operation, values: Record<string, string>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name} of ${op.path}`);
    return value;
  });
}

/** A short name for reports: `POST /agent-webhooks/{webhook_id}/pause`. */
export const opName = (op: Operation) => `${op.method.toUpperCase()} ${op.path}`;
