import type { JsonObject } from './tool.types';

/** Parameter locations the arguments schema groups by, and the argument each becomes. */
export const ARGUMENT_GROUPS = { path: 'path_params', query: 'query_params', header: 'header_params' } as const;
type Location = keyof typeof ARGUMENT_GROUPS;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonObject;
  content?: Record<string, { schema?: JsonObject }>;
  [key: string]: unknown;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys that tie a schema to a place or dialect; a tool's schema stands alone. */
const LOCATING_KEYS = new Set(['$schema', '$id', '$anchor', '$dynamicAnchor']);

/**
 * A standalone copy: `$ref` objects (the parser leaves only circular ones) accept any value, and `$schema`/`$id`
 * are dropped, so that the schema compiles on its own wherever it is used.
 */
export function withoutRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRefs);
  if (!isObject(value)) return value;
  if (typeof value.$ref === 'string') return {};
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !LOCATING_KEYS.has(k))
      .map(([k, v]) => [k, withoutRefs(v)]),
  );
}

/** The JSON schema of a content map: its JSON media type, else the first one. */
function contentSchema(content: Record<string, { schema?: JsonObject }> | undefined): JsonObject | undefined {
  if (!content) return undefined;
  const types = Object.keys(content);
  const chosen = types.find((t) => /json/i.test(t)) ?? types[0];
  return chosen ? (content[chosen]?.schema ?? {}) : undefined;
}

/** One parameter's schema: OpenAPI 3 `schema` or `content`; Swagger 2 keeps type, format, enum... on the parameter. */
function parameterSchema(p: Parameter): JsonObject {
  const own = p.schema ?? contentSchema(p.content);
  if (own) return p.description ? { ...own, description: p.description } : own;
  const { name: _n, in: _i, required: _r, allowEmptyValue: _a, collectionFormat: _c, ...rest } = p;
  return rest;
}

/** Path-level parameters apply to every operation unless the operation redefines the same name and location. */
function mergedParameters(pathItem: JsonObject, op: JsonObject): Parameter[] {
  const list = [...((pathItem.parameters as Parameter[]) ?? []), ...((op.parameters as Parameter[]) ?? [])].filter(
    (p) => isObject(p) && typeof p.name === 'string',
  );
  const byKey = new Map(list.map((p) => [`${p.in}:${p.name}`, p]));
  return [...byKey.values()];
}

/** Swagger 2 form fields become the properties of a body object. */
function formBody(params: Parameter[]): JsonObject | undefined {
  const fields = params.filter((p) => p.in === 'formData');
  if (fields.length === 0) return undefined;
  const required = fields.filter((p) => p.required).map((p) => p.name);
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((p) => [p.name, parameterSchema(p)])),
    ...(required.length ? { required } : {}),
  };
}

function bodyOf(op: JsonObject, params: Parameter[]): { schema: JsonObject; required: boolean } | undefined {
  const requestBody = op.requestBody as
    { content?: Record<string, { schema?: JsonObject }>; required?: boolean } | undefined;
  const oas3 = contentSchema(requestBody?.content);
  if (oas3) return { schema: oas3, required: requestBody?.required === true };
  const swagger2 = params.find((p) => p.in === 'body');
  if (swagger2) return { schema: swagger2.schema ?? {}, required: swagger2.required === true };
  const form = formBody(params);
  return form ? { schema: form, required: Array.isArray(form.required) } : undefined;
}

function group(params: Parameter[], location: Location): JsonObject | undefined {
  const own = params.filter((p) => p.in === location);
  if (own.length === 0) return undefined;
  const required = own.filter((p) => p.required || location === 'path').map((p) => p.name);
  return {
    type: 'object',
    properties: Object.fromEntries(own.map((p) => [p.name, parameterSchema(p)])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * The JSON schema of one operation's arguments, as the model fills them: `path_params`, `query_params`,
 * `header_params` (each present when the operation has such parameters) and `body`.
 */
export function argumentsSchema(pathItem: JsonObject, op: JsonObject): JsonObject {
  const params = mergedParameters(pathItem, op);
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const location of Object.keys(ARGUMENT_GROUPS) as Location[]) {
    const g = group(params, location);
    if (!g) continue;
    properties[ARGUMENT_GROUPS[location]] = g;
    if (Array.isArray(g.required)) required.push(ARGUMENT_GROUPS[location]);
  }
  const body = bodyOf(op, params);
  if (body) {
    properties.body = body.schema;
    if (body.required) required.push('body');
  }
  return withoutRefs({ type: 'object', properties, required, additionalProperties: false }) as JsonObject;
}
