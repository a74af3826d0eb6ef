import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';

import { ForbiddenError, ValidationError, type FieldError } from '@platform/errors';
import { currentRequestId, withLogContext } from '@platform/logger';

/** Headers of the internal path: a service of the platform (the worker) acting for an agent's owner. */
export const INTERNAL_HEADERS = {
  secret: 'x-internal-secret',
  user: 'x-on-behalf-of-user',
  org: 'x-on-behalf-of-org',
} as const;

const OWNER_ID = /^[A-Za-z0-9._@:-]{1,128}$/;
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export interface OnBehalfAuthOptions {
  /** The API key middleware: it handles every request that carries none of the internal headers. */
  apiKey: RequestHandler;
  /** The secret internal callers present. Unset or empty: the internal path is off and its headers are always refused. */
  secret?: string | null;
}

/**
 * Wraps the API key middleware with the internal path. A request carrying any of `x-internal-secret`,
 * `x-on-behalf-of-user` or `x-on-behalf-of-org` is judged only by the secret (compared in constant time over
 * SHA-256 digests): wrong, missing or not configured → 403 "Invalid Permission", whatever API key comes with it.
 * With the right secret, the request acts as the named owner (both headers required), and every line the request
 * logs names it (`on_behalf_of_user`, `on_behalf_of_org`): the call's own lines say whom it acted for, with no line of
 * its own per call. No header → API key as usual.
 */
export function withOnBehalfOf(opts: OnBehalfAuthOptions): RequestHandler {
  const expected = opts.secret ? digest(opts.secret) : null;
  return (req, res, next) => {
    const given = req.get(INTERNAL_HEADERS.secret);
    const user = req.get(INTERNAL_HEADERS.user);
    const org = req.get(INTERNAL_HEADERS.org);
    if (given === undefined && user === undefined && org === undefined) return opts.apiKey(req, res, next);
    if (!expected || given === undefined || !timingSafeEqual(digest(given), expected))
      throw new ForbiddenError('Invalid Permission');
    const problems: FieldError[] = [];
    if (!user || !OWNER_ID.test(user))
      problems.push({ loc: ['header', INTERNAL_HEADERS.user], msg: 'A user id is required', type: 'missing' });
    if (!org || !OWNER_ID.test(org))
      problems.push({ loc: ['header', INTERNAL_HEADERS.org], msg: 'An org id is required', type: 'missing' });
    if (problems.length > 0) throw new ValidationError(problems);
    req.principal = { user_id: user!, org_id: org! };
    withLogContext({ on_behalf_of_user: user, on_behalf_of_org: org }, () => next());
  };
}

/**
 * True when the request came in on the internal path (its secret already checked by `withOnBehalfOf`): routes that
 * only platform processes may call (the worker running a queued task) refuse everything else.
 */
export function isInternalCall(req: Request): boolean {
  return req.get(INTERNAL_HEADERS.secret) !== undefined && req.principal !== undefined;
}

/**
 * Headers of a call on the internal path: the shared secret, the owner acted for, and the current request's id, so
 * the called service logs the call under the id of the request that caused it.
 */
export function internalCallHeaders(
  secret: string,
  owner: { user_id: string; org_id: string },
): Record<string, string> {
  const requestId = currentRequestId();
  return {
    [INTERNAL_HEADERS.secret]: secret,
    [INTERNAL_HEADERS.user]: owner.user_id,
    [INTERNAL_HEADERS.org]: owner.org_id,
    ...(requestId ? { 'x-request-id': requestId } : {}),
  };
}
