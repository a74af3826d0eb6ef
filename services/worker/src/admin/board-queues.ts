import { createQueue, QUEUE_NAMES, type Queue, type RedisConnection } from '@platform/queue';

/** A handle on every queue of the platform (QUEUE_NAMES), for the dashboard to read; they consume nothing. */
export function boardQueues(redis: RedisConnection, prefix: string): Queue[] {
  return Object.values(QUEUE_NAMES).map((name) => createQueue(name, redis, {}, prefix));
}
