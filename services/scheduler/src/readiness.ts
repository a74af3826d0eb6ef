import type { Redis } from 'ioredis';
import type { ReadinessCheck } from '@platform/http';

/** Readiness of Redis: a PING answered within `timeoutMs`; false on any error or on timeout. */
export function redisReadiness(redis: Redis, timeoutMs = 2000): ReadinessCheck {
  return () => {
    const ping = redis.ping().then(
      (reply) => reply === 'PONG',
      () => false,
    );
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return Promise.race([ping, timer]);
  };
}
