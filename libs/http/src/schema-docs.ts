/**
 * One definition per shape: a joi schema is what `validate()` checks, what the OpenAPI document shows (converted here
 * with joi-to-json) and what the TypeScript type is (generated from it by `pnpm schemas:types`). A schema that is a
 * named shape declares its name once, with `.meta({ className: 'Name' })`: the name of its OpenAPI component and of
 * its generated type.
 */
import Joi from 'joi';
import parse from 'joi-to-json';

type Json = Record<string, unknown>;

/** The name a schema declares with `.meta({ className })`, if any. */
export function classNameOf(schema: Joi.Schema): string | undefined {
  const metas = (schema.describe() as { metas?: Array<Record<string, unknown>> }).metas ?? [];
  for (let i = metas.length - 1; i >= 0; i--) {
    const name = metas[i]!.className;
    if (typeof name === 'string') return name;
  }
  return undefined;
}

/** Meta keys for the generators and for parametersOf, not written into a schema of the document. */
const GENERATOR_KEYS = new Set(['className', 'parameter']);

/** A joi reference (`max(Joi.ref('other'))`): joi-to-json writes `{ ref: ... }`, which has no JSON Schema form. */
const isJoiRef = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v) && 'ref' in v;

function clean(value: unknown, side: Side): unknown {
  if (Array.isArray(value)) return value.map((v) => clean(v, side));
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (GENERATOR_KEYS.has(k) || isJoiRef(v)) continue;
    // An object or list default on a request is a computed value, not something a client sends; generators such as
    // openapi-typescript would read it as "this key is always there" and make every client send it.
    if (side === 'request' && k === 'default' && v !== null && typeof v === 'object') continue;
    // A one-value `.valid(x)` is written `const: x`; the documents say `enum: [x]`, which every generator reads.
    if (k === 'const') {
      out.enum = [v];
      if (out.type === undefined && typeof v === 'string') out.type = 'string';
      continue;
    }
    // A request's unknown keys are dropped by validate(), never refused: the document says so by allowing them.
    if (side === 'request' && k === 'additionalProperties' && v === false) continue;
    out[k] = clean(v, side);
  }
  // A nullable `Joi.alternatives()` comes out as `{anyOf: [...], type: 'null'}`, which admits only null: the null
  // belongs among the alternatives.
  const choices = Array.isArray(out.anyOf) ? 'anyOf' : Array.isArray(out.oneOf) ? 'oneOf' : undefined;
  if (choices && out.type === 'null') {
    delete out.type;
    out[choices] = [...(out[choices] as unknown[]), { type: 'null' }];
  }
  return out;
}

interface PatternDescription {
  schema?: unknown;
  rule?: Joi.Description;
}

/**
 * What joi-to-json leaves out, added by walking the joi description beside its output: an object whose keys are
 * matched by a schema (`Joi.object().pattern(Joi.string(), value)`, a map) gets `additionalProperties` (the value's
 * schema) and `min`/`maxProperties` from its `.min()`/`.max()`.
 */
function addMaps(json: unknown, description: Joi.Description | undefined, side: Side): void {
  if (!json || typeof json !== 'object' || !description) return;
  const node = json as Json;
  if (description.type === 'object') {
    const pattern = (description.patterns as PatternDescription[] | undefined)?.[0];
    if (pattern?.schema && pattern.rule) {
      let value: unknown = true;
      try {
        value = jsonSchemaOf(Joi.build(pattern.rule) as Joi.Schema, side);
      } catch {
        // a value schema joi cannot rebuild from its description (custom code) is documented as any value
      }
      const props = node.properties as Json | undefined;
      if (props && Object.keys(props).length === 0) delete node.properties;
      node.additionalProperties = value;
      for (const rule of (description.rules as { name: string; args: { limit: number } }[] | undefined) ?? []) {
        if (rule.name === 'max') node.maxProperties = rule.args.limit;
        if (rule.name === 'min') node.minProperties = rule.args.limit;
      }
    }
    const keys = (description.keys as Record<string, Joi.Description> | undefined) ?? {};
    const props = (node.properties as Json | undefined) ?? {};
    for (const [key, d] of Object.entries(keys)) addMaps(props[key], d, side);
  }
  if (description.type === 'array') {
    const items = description.items as Joi.Description[] | undefined;
    if (items?.length === 1) addMaps(node.items, items[0], side);
  }
}

/**
 * Which way a shape travels: a `request` schema is read by `validate()`, which drops unknown keys (so the document
 * allows them); a `response` schema documents exactly the keys it lists, unless it says `.unknown()`.
 */
export type Side = 'request' | 'response';

/**
 * The joi alteration target the documents read: `.alter({ [OPENAPI_ALTERATION]: (s) => ... })` lets a schema whose
 * values are parsed by custom code say what the document shows.
 */
export const OPENAPI_ALTERATION = 'openapi';

/** The OpenAPI 3.1 (JSON Schema 2020-12) form of a joi schema (its `OPENAPI_ALTERATION` applied). */
export function jsonSchemaOf(schema: Joi.Schema, side: Side): Json {
  const documented = schema.tailor(OPENAPI_ALTERATION);
  const json = parse(documented as never, 'open-api-3.1') as Json;
  addMaps(json, documented.describe(), side);
  return clean(json, side) as Json;
}

/** Replaces, below the root, every sub-schema equal to a named component's by a `$ref` to that component. */
function withRefs(schema: unknown, byJson: Map<string, string>, root: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withRefs(s, byJson, false));
  if (!schema || typeof schema !== 'object') return schema;
  if (!root) {
    const name = byJson.get(JSON.stringify(schema));
    if (name) return { $ref: `#/components/schemas/${name}` };
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, withRefs(v, byJson, false)]));
}

/**
 * `components.schemas` entries for named schemas, each under its `className`; a named shape nested in another is a
 * `$ref` to its own entry. Throws on a schema without a name or on two schemas with one name.
 */
export function schemaComponents(schemas: { request?: Joi.Schema[]; response?: Joi.Schema[] }): Record<string, Json> {
  const out: Record<string, Json> = {};
  const byJson = new Map<string, string>();
  const entries = [
    ...(schemas.request ?? []).map((s) => [s, 'request'] as const),
    ...(schemas.response ?? []).map((s) => [s, 'response'] as const),
  ];
  for (const [schema, side] of entries) {
    const name = classNameOf(schema);
    if (!name) throw new Error('a component schema needs .meta({ className })');
    if (out[name]) throw new Error(`two component schemas are named ${name}`);
    out[name] = jsonSchemaOf(schema, side);
    // Only object shapes become references: a bare string component must not swallow every string.
    if (out[name].properties) byJson.set(JSON.stringify(out[name]), name);
  }
  for (const name of Object.keys(out)) out[name] = withRefs(out[name], byJson, true) as Json;
  return out;
}

/** A `$ref` to a named schema's component, for a route's request or response body. */
export function refTo(schema: Joi.Schema): { $ref: string } {
  const name = classNameOf(schema);
  if (!name) throw new Error('refTo needs a schema with .meta({ className })');
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * What a key of a parameters schema adds to its parameter in the document beyond what joi says, given as
 * `.meta({ parameter: {...} })`: fields of the parameter (`style`, `explode`) and of its `schema` (e.g. a note on the
 * value beside the parameter's description).
 */
export interface ParameterDoc {
  style?: string;
  explode?: boolean;
  schema?: Json;
}

/** The `parameter` metas of an object schema's keys, by key. */
function parameterDocsOf(schema: Joi.ObjectSchema): Map<string, ParameterDoc> {
  const { keys = {} } = schema.describe() as { keys?: Record<string, { metas?: Json[] }> };
  const docs = new Map<string, ParameterDoc>();
  for (const [name, key] of Object.entries(keys)) {
    const doc = key.metas?.find((m) => m.parameter !== undefined)?.parameter as ParameterDoc | undefined;
    if (doc) docs.set(name, doc);
  }
  return docs;
}

/**
 * OpenAPI parameters from the keys of a joi object schema read by `validate(schema, ..., where)`, in the schema's key
 * order: each key's name, whether it is required, its schema, its description (`.description()`) beside the schema,
 * and what its `.meta({ parameter })` adds (ParameterDoc).
 */
export function parametersOf(schema: Joi.ObjectSchema, where: 'path' | 'query' | 'header'): Json[] {
  const json = jsonSchemaOf(schema, 'request');
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  const docs = parameterDocsOf(schema);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    const { schema: extra, ...doc } = docs.get(name) ?? {};
    return {
      name,
      in: where,
      ...(where === 'path' || required.has(name) ? { required: true } : {}),
      ...(description === undefined ? {} : { description }),
      schema: { ...rest, ...extra },
      ...doc,
    };
  });
}
