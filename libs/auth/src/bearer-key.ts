import type { Request, RequestHandler } from 'express';

/** `Bearer <token>`, the scheme case-insensitive (RFC 9110 §11.1), one or more spaces before the token. */
const BEARER = /^bearer +(\S+)\s*$/i;

/**
 * Lets the routes that `when` selects also take the API key as `Authorization: Bearer <key>`, the header that
 * OpenAI-protocol clients (the `openai` SDKs) send. A selected request without an `x-api-key` header whose
 * Authorization is a Bearer credential is handed on as if it carried `x-api-key: <key>`, so the key check, its rate
 * limit and everything after it see one header; the key is then judged exactly as an `x-api-key` (malformed,
 * unknown or revoked → 403 "Invalid Permission"). An `x-api-key`, when present, wins and Authorization is not read.
 * Any other request, or an Authorization of another scheme, passes to `auth` unchanged ("API key missing").
 */
export function withBearerKey(auth: RequestHandler, when: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    if (when(req) && req.get('x-api-key') === undefined) {
      const token = BEARER.exec(req.get('authorization') ?? '')?.[1];
      if (token !== undefined) req.headers['x-api-key'] = token;
    }
    return auth(req, res, next);
  };
}
