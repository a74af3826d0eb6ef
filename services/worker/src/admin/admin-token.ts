import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Shortest admin token accepted (WORKER_ADMIN_TOKEN). */
export const MIN_ADMIN_TOKEN_LENGTH = 24;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The token a request carries: `Authorization: Bearer <token>`, `Authorization: Basic` with the token as the password
 * (what a browser sends after its login prompt; the user name is ignored), or `x-admin-token`.
 */
function presented(header: string | undefined, adminHeader: string | undefined): string | undefined {
  if (adminHeader) return adminHeader;
  const [scheme, value] = (header ?? '').split(/\s+/, 2);
  if (!value) return undefined;
  if (/^bearer$/i.test(scheme!)) return value;
  if (/^basic$/i.test(scheme!)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}

/**
 * Lets a request through only with the admin token; otherwise 401 `{"detail": ...}` with a Basic challenge, so a
 * browser asks for it. Compared in constant time (digests of equal length, whatever the lengths given).
 */
export function requireAdminToken(token: string): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    const given = presented(req.get('authorization'), req.get('x-admin-token'));
    const ok = given !== undefined && timingSafeEqual(digest(given), expected);
    if (ok) return next();
    res
      .status(401)
      .set('www-authenticate', 'Basic realm="worker admin", charset="UTF-8"')
      .json({ detail: given === undefined ? 'Admin token missing' : 'Invalid admin token' });
  };
}
