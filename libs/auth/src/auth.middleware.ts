import type { Request, RequestHandler } from 'express';

import { ForbiddenError } from '@platform/errors';

import { hashApiKey, isWellFormedApiKey } from './api-key';
import type { Principal } from './api-key.repository';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by the API key middleware. */
      principal?: Principal;
    }
  }
}

export interface KeyLookup {
  findActiveByHash(hash: string): Promise<Principal | null>;
}

export interface ApiKeyAuthDeps {
  keys: KeyLookup;
  /** Cache lifetime for a resolved key; at most 30 s. Bounds how long a revoked key keeps working. */
  cacheTtlMs: number;
  /** Unknown keys are remembered for this long, to spare the database from floods of bad keys. */
  negativeTtlMs?: number;
  now?: () => number;
  maxEntries?: number;
}

export interface ApiKeyAuth {
  middleware: RequestHandler;
  resolve(key: string): Promise<Principal | null>;
  clear(): void;
}

/**
 * Resolves `x-api-key` to `{user_id, org_id}` with an in-process cache keyed by the key's hash.
 * Missing → 403 "API key missing"; malformed, unknown or revoked → 403 "Invalid Permission".
 */
export function createApiKeyAuth(deps: ApiKeyAuthDeps): ApiKeyAuth {
  const ttl = Math.min(deps.cacheTtlMs, 30_000);
  const negativeTtl = Math.min(deps.negativeTtlMs ?? 2_000, ttl);
  const now = deps.now ?? Date.now;
  const maxEntries = deps.maxEntries ?? 10_000;
  const cache = new Map<string, { principal: Principal | null; expires: number }>();

  async function resolve(key: string): Promise<Principal | null> {
    if (!isWellFormedApiKey(key)) return null;
    const hash = hashApiKey(key);
    const hit = cache.get(hash);
    if (hit && hit.expires > now()) return hit.principal;
    const principal = await deps.keys.findActiveByHash(hash);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(hash, { principal, expires: now() + (principal ? ttl : negativeTtl) });
    return principal;
  }

  const middleware: RequestHandler = async (req, _res, next) => {
    const key = req.get('x-api-key');
    if (key === undefined || key === '') throw new ForbiddenError('API key missing');
    const principal = await resolve(key);
    if (!principal) throw new ForbiddenError('Invalid Permission');
    req.principal = principal;
    next();
  };

  return { middleware, resolve, clear: () => cache.clear() };
}

/** The authenticated caller; only valid behind the auth middleware. */
export function principalOf(req: Request): Principal {
  if (!req.principal) throw new ForbiddenError('API key missing');
  return req.principal;
}
