import SwaggerParser from '@apidevtools/swagger-parser';

import { ValidationError } from '@platform/errors';

import { argumentsSchema } from './operation-schema';
import { HTTP_METHODS, type JsonObject, type Operation } from './tool.types';

/** More operations in one document → 422: each becomes a stored tool carrying the document. */
export const MAX_OPERATIONS = 100;
/** Function descriptions longer than this are cut (providers cap them). */
export const MAX_DESCRIPTION_CHARS = 1024;
const MAX_KEY_CHARS = 100;

const SCHEMA_LOC = ['body', 'openapi_schema'];
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where the first `$ref` that leaves the document is (a `$ref` not starting with `#`), or null. */
export function findExternalRef(
  value: unknown,
  at: (string | number)[] = [],
): { loc: (string | number)[]; ref: string } | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findExternalRef(value[i], [...at, i]);
      if (found) return found;
    }
    return null;
  }
  if (!isObject(value)) return null;
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) return { loc: [...at, k], ref: v };
    const found = findExternalRef(v, [...at, k]);
    if (found) return found;
  }
  return null;
}

/**
 * Validates and dereferences a document. External references are refused before the parser runs, and the
 * parser's file and HTTP resolvers are switched off as well, so nothing is ever read or fetched.
 */
async function dereference(doc: JsonObject): Promise<JsonObject> {
  const external = findExternalRef(doc);
  if (external) {
    throw ValidationError.field(
      [...SCHEMA_LOC, ...external.loc],
      `External $ref "${external.ref.slice(0, 200)}" is not allowed: only references inside the document (#/...)`,
      'external_ref',
    );
  }
  try {
    return (await SwaggerParser.validate(structuredClone(doc) as never, {
      resolve: { external: false, file: false, http: false },
      dereference: { circular: 'ignore' },
    })) as unknown as JsonObject;
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw ValidationError.field(
      SCHEMA_LOC,
      `Not a valid OpenAPI 3.0, 3.1 or Swagger 2.0 document: ${msg.slice(0, 1000)}`,
      'openapi_invalid',
    );
  }
}

const sanitise = (s: string) =>
  s
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');

/** The tool id's last part: the operationId, else `<method>_<path>`, made safe for paths and function names. */
function keyOf(method: string, path: string, operationId: unknown): string {
  const fromId = typeof operationId === 'string' ? sanitise(operationId) : '';
  return (fromId || sanitise(`${method}_${path.replace(/[{}]/g, '')}`)).slice(0, MAX_KEY_CHARS);
}

function describe(method: string, path: string, op: JsonObject): string {
  const parts = [op.summary, op.description].filter((s): s is string => typeof s === 'string' && s.trim() !== '');
  const text = parts.length ? parts.join('\n\n') : `${method.toUpperCase()} ${path}`;
  return text.slice(0, MAX_DESCRIPTION_CHARS);
}

/** Every operation of a dereferenced document, keys made unique within it. */
function operationsOf(doc: JsonObject): Operation[] {
  const out: Operation[] = [];
  const used = new Set<string>();
  for (const [path, item] of Object.entries((doc.paths as JsonObject) ?? {})) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      let key = keyOf(method, path, op.operationId);
      for (let n = 2; used.has(key); n++) key = `${keyOf(method, path, op.operationId)}_${n}`;
      used.add(key);
      const operationId = typeof op.operationId === 'string' ? op.operationId : null;
      out.push({
        key,
        method,
        path,
        operationId,
        description: describe(method, path, op),
        parameters: argumentsSchema(item, op),
      });
    }
  }
  return out;
}

/** The operations of an OpenAPI 3.0 / 3.1 or Swagger 2.0 document; 422 when it is invalid, external or too large. */
export async function importOperations(doc: JsonObject): Promise<Operation[]> {
  const operations = operationsOf(await dereference(doc));
  if (operations.length === 0)
    throw ValidationError.field([...SCHEMA_LOC, 'paths'], 'The document has no operations', 'openapi_empty');
  if (operations.length > MAX_OPERATIONS) {
    throw ValidationError.field(
      [...SCHEMA_LOC, 'paths'],
      `The document has ${operations.length} operations; at most ${MAX_OPERATIONS} per tool set`,
      'too_long',
    );
  }
  return operations;
}

/** The base URL the document names: OpenAPI 3's first server (variables at their defaults), Swagger 2's host. */
export function documentBaseUrl(doc: JsonObject): string | null {
  const servers = doc.servers as { url?: unknown; variables?: Record<string, { default?: unknown }> }[] | undefined;
  const first = Array.isArray(servers) ? servers[0] : undefined;
  if (first && typeof first.url === 'string') {
    return first.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const d = first.variables?.[name]?.default;
      return typeof d === 'string' ? d : whole;
    });
  }
  if (typeof doc.host === 'string') {
    const schemes = Array.isArray(doc.schemes) ? (doc.schemes as string[]) : [];
    const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
    return `${scheme}://${doc.host}${typeof doc.basePath === 'string' ? doc.basePath : ''}`;
  }
  return null;
}
