import express, { type Request, type RequestHandler } from 'express';

import { AppError, ValidationError } from '@platform/errors';

import { inspectInput, stringFault } from './input-inspect';

/** Media types a JSON route reads: `application/json` and any `application/*+json`. */
export const JSON_CONTENT_TYPES = ['application/json', 'application/*+json'];

/** The API's 415 for a JSON route given another media type. */
export const UNSUPPORTED_MEDIA_TYPE = 'Content-Type must be application/json';

/** True when the request carries body bytes (a chunked body, or a Content-Length above 0). */
function hasBodyBytes(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  return Number(req.headers['content-length'] ?? 0) > 0;
}

/** False when a path segment does not decode, or decodes to U+0000 or a lone surrogate: no id looks like that. */
function isCleanPath(path: string): boolean {
  for (const segment of path.split('/')) {
    if (!segment.includes('%')) continue;
    try {
      if (stringFault(decodeURIComponent(segment))) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Path and query, before any route or store sees them: a path that names nothing storable → 404 (as an unknown
 * id would be); a query string with U+0000 or a lone surrogate → 422 at loc ["query", name].
 */
export const rejectBadUrl: RequestHandler = (req, _res, next) => {
  if (!isCleanPath(req.path)) throw new AppError(404, 'Not Found');
  const errors = inspectInput(req.query, 'query');
  if (errors.length > 0) throw new ValidationError(errors);
  next();
};

/** The parts of express's router (router 2) that say what it routes. */
interface RouterLayer {
  route?: { _handlesMethod(method: string): boolean };
  handle?: { stack?: RouterLayer[] };
  slash?: boolean;
  match(path: string): false | { path: string };
}

/**
 * Whether `router` has a route for `method` on `path`: its own routes and those of the routers mounted in it,
 * matched as the router itself will match them. A middleware mounted on a path of its own (not a router) counts as a
 * route there: it may answer. These are router 2's own fields: a layer not shaped so (another router version) counts
 * as a route, so that the content-type rule applies everywhere, as before routing was asked (test/input-guards).
 */
export function hasRoute(router: { stack?: RouterLayer[] }, method: string, path: string): boolean {
  for (const layer of router.stack ?? []) {
    if (typeof layer.match !== 'function') return true;
    const m = layer.match(path);
    if (!m) continue;
    if (layer.route) {
      if (typeof layer.route._handlesMethod !== 'function' || layer.route._handlesMethod(method)) return true;
      continue;
    }
    if (layer.handle?.stack) {
      // A router mounted on a prefix sees the rest of the path (with its leading slash), as in express.
      const rest = path.slice(m.path.length);
      if (hasRoute(layer.handle, method, rest.startsWith('/') ? rest : `/${rest}`)) return true;
      continue;
    }
    if (!layer.slash && m.path !== '' && m.path !== '/') return true;
  }
  return false;
}

/** The API's 415 for a multipart route (file uploads) given another media type. */
export const UNSUPPORTED_MULTIPART_TYPE = 'Content-Type must be multipart/form-data';

/**
 * A body whose Content-Type is not one of `types` → 415 `detail`, instead of reaching a handler that would see no
 * body. A request with no body bytes passes whatever its Content-Type: handlers treat it as a missing body (422 where
 * one is required), as clients that POST with no body at all expect. With `only`, the rule applies to the requests it
 * names (see requireJsonContentTypeOn).
 */
export function requireContentType(
  types: string[],
  detail: string,
  only: (req: Request) => boolean = () => true,
): RequestHandler {
  return (req, _res, next) => {
    if (hasBodyBytes(req) && !req.is(types) && only(req)) throw new AppError(415, detail);
    next();
  };
}

/** JSON bodies only (requireContentType), on every request it sees. */
export const requireJsonContentType: RequestHandler = requireContentType(JSON_CONTENT_TYPES, UNSUPPORTED_MEDIA_TYPE);

/**
 * requireJsonContentType for the routes of `router` only: a path that no route of it serves is left to the 404 (or
 * whatever answers after it), whatever body it was sent with. Routing decides before any content-type rule. The
 * question is asked only of a body that breaks the rule (`hasRoute` walks the router's layers).
 */
export function requireJsonContentTypeOn(router: unknown): RequestHandler {
  const r = router as { stack?: RouterLayer[] };
  return requireContentType(JSON_CONTENT_TYPES, UNSUPPORTED_MEDIA_TYPE, (req) => hasRoute(r, req.method, req.path));
}

/** A body size limit as body-parser reads it (`bytes`: a number, or `<n>b|kb|mb|gb` in units of 1,024); else null. */
export function limitBytes(limit: string | number): number | null {
  if (typeof limit === 'number') return Number.isFinite(limit) && limit >= 0 ? Math.floor(limit) : null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (!m) return null;
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.floor(Number(m[1]) * unit);
}

/** The Content-Types every JSON client sends, read by the plain path (lower case, as the header is compared). */
const PLAIN_JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);
const CONTENT_LENGTH = /^\d{1,12}$/;

/** The error a body that is not JSON (or not an object or array) gets, as the parser's failure is answered. */
const notJson = () => ValidationError.field(['body'], 'JSON decode error', 'json_invalid');

/**
 * Reads a body of `length` declared bytes whole and parses it as strict JSON (an object or an array; a leading BOM
 * dropped, as body-parser's decoding drops it). A body cut short (the client went away) → 400.
 */
function readPlainJson(req: Request, length: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const finish = (err: Error | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', incomplete);
      req.off('close', incomplete);
      if (err) return reject(err);
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, got);
      const text = buf.toString('utf8');
      const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      const first = /^[ \t\n\r]*(.)/.exec(body)?.[1];
      if (first !== '{' && first !== '[') return reject(notJson());
      try {
        resolve(JSON.parse(body));
      } catch {
        reject(notJson());
      }
    };
    const onData = (chunk: Buffer) => {
      got += chunk.length;
      chunks.push(chunk);
    };
    // An error, or a close before the end: the client went away mid-body.
    const incomplete = () => finish(new AppError(400, 'Request body incomplete'));
    const onEnd = () => (got === length ? finish(null) : incomplete());
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', incomplete);
    req.once('close', incomplete);
  });
}

/**
 * The JSON parser: objects and arrays only (strict), at most `limit` bytes (else 413). What nearly every request
 * sends (`application/json`, UTF-8, a Content-Length within the limit, no Content-Encoding) is read and parsed here
 * in one pass; everything else (another charset, a compressed or chunked body, an `application/*+json` type, a body
 * over the limit, a limit this cannot read) goes to express's parser (body-parser), which answers it as before. Both
 * paths end in the same answers (test/json-body): 422 for a body that is not JSON, 413 over the limit.
 */
export function jsonBodyParser(limit: string | number): RequestHandler {
  const general = express.json({ limit, strict: true, type: JSON_CONTENT_TYPES });
  const max = limitBytes(limit);
  return (req, res, next) => {
    const type = req.headers['content-type'];
    const length = req.headers['content-length'];
    const plain =
      max !== null &&
      type !== undefined &&
      length !== undefined &&
      PLAIN_JSON_TYPES.has(type.toLowerCase()) &&
      req.headers['content-encoding'] === undefined &&
      req.headers['transfer-encoding'] === undefined &&
      CONTENT_LENGTH.test(length) &&
      Number(length) > 0 &&
      Number(length) <= max &&
      !req.readableEnded &&
      !req.readableDidRead;
    if (!plain) return general(req, res, next);
    readPlainJson(req, Number(length)).then((body) => {
      req.body = body;
      next();
    }, next);
  };
}

/** A parsed body nested deeper than MAX_JSON_DEPTH, or with U+0000 or lone surrogates in a key or string → 422. */
export const rejectBadJson: RequestHandler = (req, _res, next) => {
  const body: unknown = req.body;
  if (body !== undefined) {
    const errors = inspectInput(body, 'body');
    if (errors.length > 0) throw new ValidationError(errors);
  }
  next();
};
