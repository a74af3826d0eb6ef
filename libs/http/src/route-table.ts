/**
 * A route table: each route of a service declared once (method, path, summary, the joi schemas of its path, query,
 * headers and body, its responses by status, and its handler). `mountRoutes` serves a table on Express, validation
 * included; `openapiPaths` writes the OpenAPI `paths` of the same tables. A route's path is written in the document's
 * form (`/v1/things/{thing_id}`) and mounted in Express's (`/v1/things/:thing_id`).
 *
 * A table is static (importable without a database), so the document can be built without starting the service: a
 * handler receives the feature's dependencies (`deps`) when the table is mounted.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type Joi from 'joi';

import { apiKeySecurityScheme, errorSchemas, jsonContent, withStandardResponses } from './openapi';
import { classNameOf, jsonSchemaOf, parametersOf } from './schema-docs';
import { sendJson } from './send-json';
import { validate, validateForm, type Validated } from './validate';

type Json = Record<string, unknown>;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Maybe<S> = S extends Joi.Schema ? Validated<S> : undefined;

/** A documented response: a JSON body (a joi schema, named ones by `$ref`) or the document's own content object. */
export interface RouteResponse {
  description: string;
  body?: Joi.Schema;
  /** Content of the response as the document writes it (e.g. `text/event-stream`), beside or instead of `body`. */
  content?: Json;
  headers?: Json;
}

/** What a handler gets: the validated parts of the request, and the request and response themselves. */
export interface RouteInput<P, Q, H, B> {
  params: P;
  query: Q;
  headers: H;
  body: B;
  req: Request;
  res: Response;
}

export interface RouteDef<
  D,
  P extends Joi.ObjectSchema | undefined = undefined,
  Q extends Joi.ObjectSchema | undefined = undefined,
  H extends Joi.ObjectSchema | undefined = undefined,
  B extends Joi.Schema | undefined = undefined,
> {
  method: Method;
  /** The document's form: `/v1/things/{thing_id}`. */
  path: string;
  summary: string;
  description?: string;
  operationId?: string;
  /**
   * Path parameters: documented and validated (a failure → 422 at `path`). A route where a malformed id is simply not
   * found gives `paramsDoc` instead: documented only, the handler reads `req.params`.
   */
  params?: P;
  paramsDoc?: Joi.ObjectSchema;
  query?: Q;
  /** Request headers: documented and validated (their names as the schema's keys, lower case). */
  headers?: H;
  /** Request headers documented only: the handler reads them as given (e.g. signature headers its service checks). */
  headersDoc?: Joi.ObjectSchema;
  /** The JSON body: documented (a named schema by `$ref`) and validated; required unless `bodyOptional`. */
  body?: B;
  /** The body may be left out: validated against `{}` when absent. */
  bodyOptional?: boolean;
  /**
   * A hand-written check of the body's common shape, for a hot route: it returns exactly what `body` validates the
   * same value to, or `undefined` for anything it does not vouch for (which `body` then decides, errors included).
   * Its tests compare it with the schema.
   */
  fastBody?: (body: unknown) => Maybe<B> | undefined;
  /**
   * The body is a multipart/form-data form, read by the route's `use` (uploadMiddleware) rather than JSON: `body` is
   * then the schema of its fields beside the file part named `file`, validated as strings that convert (validateForm),
   * and documented with that file part.
   */
  multipart?: { file: string };
  /** The request body as the document writes it (e.g. a multipart form), when the route parses its own body. */
  requestBody?: Json;
  /** Responses by status. A string is an error answer (the contract's `{detail}`) with that description. */
  responses: Record<string, RouteResponse | string>;
  /** Add the answers every authenticated route can give (403, 422, 503); default true. */
  standardResponses?: boolean;
  /** Other paths serving the same route (for clients that call it there); documented each as its own operation. */
  aliases?: { path: string; operationId?: string; description?: string }[];
  /** The operation's other fields in the document (`security`, `tags`, `x-...`), written after the generated ones. */
  openapi?: Json;
  /** Middleware run before validation (rate limits, body parsers), made from the table's deps. */
  use?(deps: D): RequestHandler[];
  /**
   * The handler. Its value is the answer, sent with the route's first 2xx status (`undefined` on a 204 ends the
   * answer with no body); a handler that answers itself (a stream, a status of its own) returns nothing.
   */
  handle(deps: D, input: RouteInput<Maybe<P>, Maybe<Q>, Maybe<H>, Maybe<B>>): unknown;
}

/** A route of a table, its schema types erased. */
export type Route<D> = RouteDef<
  D,
  Joi.ObjectSchema | undefined,
  Joi.ObjectSchema | undefined,
  Joi.ObjectSchema | undefined,
  Joi.Schema | undefined
>;

/** Declares one route, its handler's input typed from its schemas. */
export function route<
  D,
  P extends Joi.ObjectSchema | undefined = undefined,
  Q extends Joi.ObjectSchema | undefined = undefined,
  H extends Joi.ObjectSchema | undefined = undefined,
  B extends Joi.Schema | undefined = undefined,
>(def: RouteDef<D, P, Q, H, B>): Route<D> {
  return def;
}

/** `/v1/things/{thing_id}` → `/v1/things/:thing_id`. */
export const expressPath = (path: string): string => path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');

/** The status a handler's value is sent with: the route's first 2xx. */
function successStatus<D>(r: Route<D>): number {
  const ok = Object.keys(r.responses).find((s) => /^2\d\d$/.test(s));
  return ok ? Number(ok) : 200;
}

/** The header names a schema reads (its keys), found once when the route is mounted. */
const headerNames = (schema: Joi.ObjectSchema): string[] =>
  Object.keys((schema.describe() as { keys?: Json }).keys ?? {});

function handlerOf<D>(r: Route<D>, deps: D): RequestHandler {
  const status = successStatus(r);
  const names = r.headers ? headerNames(r.headers) : [];
  return async (req, res) => {
    const params = r.params ? validate(r.params, req.params, 'path') : undefined;
    const headers = r.headers
      ? validate(r.headers, Object.fromEntries(names.map((n) => [n, req.get(n)])), 'header')
      : undefined;
    const query = r.query ? validate(r.query, req.query, 'query') : undefined;
    const given: unknown = r.bodyOptional && (req.body === undefined || req.body === null) ? {} : req.body;
    const body = r.body
      ? r.multipart
        ? validateForm(r.body, req.body)
        : (r.fastBody?.(given) ?? validate(r.body, given, 'body'))
      : undefined;
    const value = await r.handle(deps, { params, query, headers, body, req, res });
    if (res.headersSent) return;
    if (value === undefined && status === 204) res.status(204).end();
    else if (r.method === 'get' || value === undefined) res.status(status).json(value);
    else sendJson(res, status, value);
  };
}

/** An Express router serving the tables' routes with `deps`. */
export function mountRoutes<D>(tables: readonly Route<D>[], deps: D): Router {
  const router = Router();
  for (const r of tables) {
    const paths = [r.path, ...(r.aliases ?? []).map((a) => a.path)].map(expressPath);
    router[r.method](paths, ...(r.use?.(deps) ?? []), handlerOf(r, deps));
  }
  return router;
}

/** The document's form of a response. */
function responseDoc(value: RouteResponse | string): Json {
  if (typeof value === 'string') return { description: value, ...jsonContent({ $ref: '#/components/schemas/Error' }) };
  const { description, body, content, headers } = value;
  const bodyContent = body
    ? jsonContent(
        classNameOf(body) ? { $ref: `#/components/schemas/${classNameOf(body)}` } : jsonSchemaOf(body, 'response'),
      ).content
    : undefined;
  const all = bodyContent || content ? { ...bodyContent, ...content } : undefined;
  return { description, ...(headers ? { headers } : {}), ...(all ? { content: all } : {}) };
}

/** The document's form of a request body schema. */
const requestSchemaOf = (s: Joi.Schema): Json =>
  classNameOf(s) ? { $ref: `#/components/schemas/${classNameOf(s)}` } : jsonSchemaOf(s, 'request');

/** The document's request body of a route that validates one. */
const requestBodyOf = (body: Joi.Schema, r: Route<unknown>): Json =>
  r.multipart
    ? multipartBody(body as Joi.ObjectSchema, r.multipart.file)
    : { required: !r.bodyOptional, ...jsonContent(requestSchemaOf(body)) };

/** The OpenAPI operation of a route. */
export function operationOf(r: Route<unknown>): Json {
  const parameters = [
    ...((r.params ?? r.paramsDoc) ? parametersOf((r.params ?? r.paramsDoc)!, 'path') : []),
    ...(r.query ? parametersOf(r.query, 'query') : []),
    ...((r.headers ?? r.headersDoc) ? parametersOf((r.headers ?? r.headersDoc)!, 'header') : []),
  ];
  const requestBody = r.requestBody ?? (r.body ? requestBodyOf(r.body, r) : undefined);
  const own = Object.fromEntries(Object.entries(r.responses).map(([status, v]) => [status, responseDoc(v)]));
  const responses = r.standardResponses === false ? own : { ...withStandardResponses({}), ...own };
  return {
    summary: r.summary,
    ...(r.operationId ? { operationId: r.operationId } : {}),
    ...(r.description ? { description: r.description } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: sortStatuses(responses),
    ...r.openapi,
  };
}

/** Responses in status order (2xx first), as readers expect them. */
const sortStatuses = (responses: Json): Json =>
  Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));

/** The OpenAPI `paths` of the tables' routes (aliases included), in the order they are declared. */
export function openapiPaths(tables: readonly Route<never>[]): Record<string, Record<string, Json>> {
  const paths: Record<string, Record<string, Json>> = {};
  const add = (path: string, method: Method, op: Json) => {
    const item = (paths[path] ??= {});
    if (item[method]) throw new Error(`${method.toUpperCase()} ${path} is declared twice`);
    item[method] = op;
  };
  for (const r of tables as readonly Route<unknown>[]) {
    const op = operationOf(r);
    add(r.path, r.method, op);
    for (const alias of r.aliases ?? []) {
      // Each operation id names one operation: an alias without its own has none.
      const { operationId: _own, ...rest } = op;
      const { operationId, description } = alias;
      add(alias.path, r.method, {
        ...rest,
        ...(operationId ? { operationId } : {}),
        ...(description ? { description } : {}),
      });
    }
  }
  return paths;
}

export interface ServiceDocumentOptions {
  title: string;
  description: string;
  version?: string;
  /** The named shapes (`schemaComponents(...)`); the error shapes are added. */
  schemas: Record<string, unknown>;
  /** The service's route tables. */
  routes: readonly Route<never>[];
}

/** A service's OpenAPI 3.1 document: API-key security on every route (a route's own `security` aside), paths from its tables. */
export function serviceDocument(opts: ServiceDocumentOptions) {
  return {
    openapi: '3.1.0',
    info: { title: opts.title, version: opts.version ?? '1.0.0', description: opts.description },
    components: { securitySchemes: apiKeySecurityScheme, schemas: { ...errorSchemas, ...opts.schemas } },
    security: [{ apiKey: [] }],
    paths: openapiPaths(opts.routes),
  };
}

/**
 * A multipart request body in the document, written from the joi schema of its form fields (what the route validates
 * them with) and one required file part named `file`.
 */
export function multipartBody(form: Joi.ObjectSchema, file = 'file'): Json {
  const fields = jsonSchemaOf(form, 'request') as { required?: string[]; properties?: object };
  const schema = {
    ...fields,
    required: [file, ...(fields.required ?? [])],
    properties: { [file]: { type: 'string', format: 'binary' }, ...fields.properties },
  };
  return { required: true, content: { 'multipart/form-data': { schema } } };
}
