import type Joi from 'joi';

import type { ServicePaths } from '@platform/sdk';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A service of ours that others call: its folder under `services/` (and its document `libs/sdk/openapi/<service>.json`). */
export type Service = keyof ServicePaths;

/** A path template of the service's generated document, e.g. `/v3/rag/{config_id}/retrieve/`. */
export type PathOf<S extends Service> = keyof ServicePaths[S] & string;

type Operation<S extends Service, P extends PathOf<S>, M extends Method> = Exclude<
  ServicePaths[S][P][Lowercase<M> & keyof ServicePaths[S][P]],
  undefined
>;

/** The methods the service's document serves at the path. */
export type MethodOf<S extends Service, P extends PathOf<S>> = {
  [M in Method]: [Operation<S, P, M>] extends [never] ? never : M;
}[Method];

/** The body of the operation's 200 as the callee's document declares it. */
export type ResponseOf<S extends Service, P extends PathOf<S>, M extends Method> =
  Operation<S, P, M> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : unknown;

/** The names in a path template: `/a/{x}/b/{y}` → 'x' | 'y'. */
export type PathParams<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParams<Rest>
  : never;

/**
 * One operation of a sibling service as its caller relies on it: which service, the method and path template of the
 * callee's document (both checked by the compiler against the callee's generated paths: a path or method the callee
 * does not serve does not compile), and what the caller reads of its 200. Declared once per operation
 * (`siblingOperation`), used by each call (`operationCall`), and checked against the callee's OpenAPI document by a test
 * (`test/openapi/sibling-calls.test.ts`): a field the caller needs and the callee may leave out or send in another
 * type fails there, not in production.
 */
export interface SiblingOperation<T, P extends string = string> {
  service: Service;
  method: Method;
  path: P;
  /** What the caller reads of a 200 (unknown keys allowed): the fields it relies on, not a copy of the callee's shape. */
  response: Joi.Schema<T>;
}

const declared: SiblingOperation<unknown>[] = [];

/** `unknown` when every 200 the callee's generated type allows is a `T`; otherwise a type no schema has. */
type Fits<R, T> = [R] extends [T] ? unknown : { "the callee's generated 200 is not what the caller reads": R };

/**
 * Declares an operation a caller relies on (kept for the test that checks it against the callee's document). The
 * compiler checks the service, path and method against the callee's generated paths, and that the callee's 200 (its
 * generated type) is assignable to what the caller reads (`T`, the schema's type).
 */
export function siblingOperation<T, S extends Service, P extends PathOf<S>, M extends MethodOf<S, P>>(op: {
  service: S;
  method: M;
  path: P;
  response: Joi.Schema<T> & Fits<ResponseOf<S, P, M>, T>;
}): SiblingOperation<T, P> {
  declared.push(op);
  return op;
}

/** Every operation declared by the modules loaded so far. */
export const siblingOperations = (): readonly SiblingOperation<unknown>[] => declared;

/** The method, path (template filled, each value encoded) and response schema of one call of `op`. */
export function operationCall<T, P extends string>(
  op: SiblingOperation<T, P>,
  ...[params]: PathParams<P> extends never ? [] : [Record<PathParams<P>, string>]
): { method: Method; path: string; response: Joi.Schema<T> } {
  const values = (params ?? {}) as Record<string, string>;
  const path = op.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${op.path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  return { method: op.method, path, response: op.response };
}
