import type Joi from 'joi';

/**
 * One operation of a sibling service as its caller relies on it: which service, the method and path template of the
 * callee's document, and the shape of the 200 the caller reads. Declared once per operation (`siblingOperation`), used
 * by each call (`operationCall`), and checked against the callee's OpenAPI document by a test
 * (`test/openapi/sibling-calls.test.ts`): a path the callee does not serve, or a field the caller needs and the callee
 * may leave out or send in another type, fails there, not in production.
 */
export interface SiblingOperation<T> {
  /** The callee: its folder under `services/` (and its document `libs/sdk/openapi/<service>.json`). */
  service: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The callee document's path template, e.g. `/v3/rag/{rag_id}/retrieve/`. */
  path: string;
  /** What the caller reads of a 200 (unknown keys allowed). */
  response: Joi.Schema<T>;
}

const declared: SiblingOperation<unknown>[] = [];

/** Declares an operation a caller relies on (kept for the test that checks it against the callee's document). */
export function siblingOperation<T>(op: SiblingOperation<T>): SiblingOperation<T> {
  declared.push(op);
  return op;
}

/** Every operation declared by the modules loaded so far. */
export const siblingOperations = (): readonly SiblingOperation<unknown>[] => declared;

/** The method, path (template filled, each value encoded) and response schema of one call of `op`. */
export function operationCall<T>(
  op: SiblingOperation<T>,
  params: Record<string, string> = {},
): { method: SiblingOperation<T>['method']; path: string; response: Joi.Schema<T> } {
  const path = op.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${op.path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  return { method: op.method, path, response: op.response };
}
