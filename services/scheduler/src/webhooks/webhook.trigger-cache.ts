import { createReadCache, type ReadCacheOptions } from '@platform/queue';

import type { WebhookRepository } from './webhook.repository';
import type { WebhookRecord } from './webhook.types';

/** How long and how many webhooks a replica keeps, and the bus that drops them (ReadCacheOptions). */
export type TriggerCacheOptions = Omit<ReadCacheOptions, 'name'>;

export const DEFAULT_TRIGGER_CACHE = { ttlMs: 5_000, max: 10_000 };

/**
 * The webhook repository with the trigger's lookup cached: a trigger then costs one database write (the execution)
 * and no read. Every write through this repository drops the webhook from the cache here and, through the bus, in
 * every replica, so a pause, a rotated secret or a deletion takes effect at once; if a message is lost (Redis away),
 * within `ttlMs`. A read that raced with a change is not cached.
 */
export function withTriggerCache(repo: WebhookRepository, opts: TriggerCacheOptions): WebhookRepository {
  const cache = createReadCache<WebhookRecord>(opts);
  return {
    ...repo,
    findForTrigger: (id) => cache.get(id, '', () => repo.findForTrigger(id)),
    update: (owner, id, set, extra) => cache.changed(id, repo.update(owner, id, set, extra)),
    setActiveIfNot: (owner, id, active, at) => cache.changed(id, repo.setActiveIfNot(owner, id, active, at)),
    rotateSecret: (owner, id, expected, next, expires, at) =>
      cache.changed(id, repo.rotateSecret(owner, id, expected, next, expires, at)),
    delete: (owner, id) => cache.changed(id, repo.delete(owner, id)),
  };
}
