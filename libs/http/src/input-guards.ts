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

/** The JSON parser: objects and arrays only (strict), at most `limit` bytes (else 413). */
export function jsonBodyParser(limit: string | number): RequestHandler {
  return express.json({ limit, strict: true, type: JSON_CONTENT_TYPES });
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
