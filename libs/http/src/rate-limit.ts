import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

import { RateLimitedError } from '@platform/errors';
import type { Logger } from '@platform/logger';

export interface RateLimitOptions {
  /** What is counted (`key`, `webhook`): part of the store key and of log lines. */
  name: string;
  /** Requests allowed per window and subject; 0 turns the limit off. */
  points: number;
  /** Window length in seconds (default 60). */
  windowSec?: number;
  /**
   * The shared counter store, an ioredis client. Absent: counted in this process only (one replica's share).
   * A producer connection (fails fast while Redis is away) is the right kind.
   */
  redis?: unknown;
  /** Prefix of the store keys (default `rl`); deployments sharing one Redis use different prefixes. */
  prefix?: string;
  /** How long a request waits for the store before it is let through (default 500 ms). */
  storeTimeoutMs?: number;
  logger: Logger;
}

/** A fixed-window counter per subject (an API key, a webhook). */
export interface RateLimit {
  readonly name: string;
  readonly points: number;
  /**
   * Counts one request of `subject`; throws `RateLimitedError` (429 with `Retry-After` in seconds) once the window's
   * points are spent. Fails open: when the store cannot answer (Redis down or slow) the request goes through and the
   * outage is logged once, so an outage of the limiter never turns requests into 5xx.
   */
  consume(subject: string): Promise<void>;
}

/** Defaults: generous enough that no ordinary client meets them, low enough to stop a runaway loop. */
export const DEFAULT_RATE_LIMITS = { perKeyPerMin: 1200, perWebhookPerMin: 600 } as const;

/** A counter in Redis (shared by every replica) or, without Redis, in this process. */
export function createRateLimit(opts: RateLimitOptions): RateLimit {
  const duration = opts.windowSec ?? 60;
  const keyPrefix = `${opts.prefix ?? 'rl'}:${opts.name}`;
  const limiter: RateLimiterAbstract | null =
    opts.points <= 0
      ? null
      : opts.redis
        ? new RateLimiterRedis({
            storeClient: opts.redis,
            points: opts.points,
            duration,
            keyPrefix,
            rejectIfRedisNotReady: true,
          })
        : new RateLimiterMemory({ points: opts.points, duration, keyPrefix });
  const timeoutMs = opts.storeTimeoutMs ?? 500;
  let storeDown = false;

  async function consume(subject: string): Promise<void> {
    if (!limiter) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([limiter.consume(subject), timeout]);
      if (outcome === 'timeout') throw new Error(`rate limit store did not answer within ${timeoutMs} ms`);
      if (storeDown) opts.logger.info('rate limit store reachable again', { limit: opts.name });
      storeDown = false;
    } catch (err) {
      if (err instanceof RateLimiterRes) throw new RateLimitedError(err.msBeforeNext / 1000);
      if (!storeDown)
        opts.logger.warn('rate limit store unreachable: letting requests through', {
          limit: opts.name,
          message: (err as Error).message,
        });
      storeDown = true;
    } finally {
      clearTimeout(timer);
    }
  }

  return { name: opts.name, points: opts.points, consume };
}

/** The subject of an API key: its SHA-256, so the plaintext never reaches the store. */
export function apiKeySubject(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Per API key: counts the `x-api-key` of each request; put it after the key has been checked. */
export function rateLimitPerApiKey(limit: RateLimit): RequestHandler {
  return async (req, _res, next) => {
    const key = req.get('x-api-key');
    if (key) await limit.consume(apiKeySubject(key));
    next();
  };
}

/** Per path parameter (e.g. a webhook's id on its public trigger route). */
export function rateLimitPerParam(limit: RateLimit, param: string): RequestHandler {
  return async (req, _res, next) => {
    const value = req.params[param];
    if (typeof value === 'string' && value !== '') await limit.consume(value);
    next();
  };
}

/** Runs `first`, then `second`, as one middleware (e.g. the key check, then its rate limit). */
export function chainMiddleware(first: RequestHandler, second: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const after = (err?: unknown) => {
      if (err) {
        next(err);
        return;
      }
      Promise.resolve(second(req, res, next)).catch(next);
    };
    Promise.resolve(first(req, res, after)).catch(next);
  };
}
