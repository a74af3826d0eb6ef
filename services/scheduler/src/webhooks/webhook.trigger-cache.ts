import { localChangeBus, type ChangeBus } from '@platform/queue';
import type { WebhookRepository } from './webhook.repository';
import type { WebhookRecord } from './webhook.types';

export interface TriggerCacheOptions {
  /** How long a cached webhook is used without reading it again: the bound on staleness if a change message is lost. */
  ttlMs: number;
  /** Most webhooks kept; the oldest entry goes first. */
  max: number;
  /** Where changes are announced; other replicas drop their copy on it. In-process by default. */
  bus?: ChangeBus;
  now?: () => number;
}

export const DEFAULT_TRIGGER_CACHE = { ttlMs: 5_000, max: 10_000 };

/**
 * The webhook repository with the trigger's lookup cached: a trigger then costs one database write (the execution)
 * and no read. Every write through this repository drops the webhook from the cache here and, through the bus, in
 * every replica, so a pause, a rotated secret or a deletion takes effect at once; if a message is lost (Redis away),
 * within `ttlMs`. A read that raced with a change is not cached.
 */
export function withTriggerCache(repo: WebhookRepository, opts: TriggerCacheOptions): WebhookRepository {
  const now = opts.now ?? Date.now;
  const bus = opts.bus ?? localChangeBus();
  const entries = new Map<string, { record: WebhookRecord; expires: number }>();
  const versions = new Map<string, number>();
  bus.onChange((id) => {
    entries.delete(id);
    versions.set(id, (versions.get(id) ?? 0) + 1);
    if (versions.size > opts.max) versions.delete(versions.keys().next().value!);
  });
  const changed = async <R>(id: string, write: Promise<R>): Promise<R> => {
    try {
      return await write;
    } finally {
      bus.publish(id);
    }
  };

  return {
    ...repo,
    async findForTrigger(id) {
      const hit = entries.get(id);
      if (hit && hit.expires > now()) return hit.record;
      const version = versions.get(id);
      const record = await repo.findForTrigger(id);
      entries.delete(id);
      if (record && versions.get(id) === version) {
        if (entries.size >= opts.max) entries.delete(entries.keys().next().value!);
        entries.set(id, { record, expires: now() + opts.ttlMs });
      }
      return record;
    },
    update: (owner, id, set) => changed(id, repo.update(owner, id, set)),
    setActiveIfNot: (owner, id, active, at) => changed(id, repo.setActiveIfNot(owner, id, active, at)),
    rotateSecret: (owner, id, expected, next, expires, at) => changed(id, repo.rotateSecret(owner, id, expected, next, expires, at)),
    delete: (owner, id) => changed(id, repo.delete(owner, id)),
  };
}
