import { localChangeBus, type ChangeBus } from './change-bus';

export interface ReadCacheOptions {
  /** How long a cached value is used without reading it again: the bound on staleness if a change message is lost. */
  ttlMs: number;
  /** Most values kept; the oldest entry goes first. */
  max: number;
  /** Where changes are announced; other replicas drop their copy on it. In-process by default. */
  bus?: ChangeBus;
  /**
   * Names the kind of object on a bus that several caches share: its messages are `<name>:<id>`. Without it a
   * message is the bare id.
   */
  name?: string;
  now?: () => number;
}

/** Hot reads of one kind of object, cached per replica and dropped in every replica when the object changes. */
export interface ReadCache<V> {
  /**
   * The value of `id` as `scope` (its owner, say) may see it: the cached one when it was cached for that scope, else
   * what `load` returns. A value found is cached unless a change of `id` was announced while it was being read;
   * nothing is cached for "not found", so a later create is seen at once.
   */
  get(id: string, scope: string, load: () => Promise<V | null>): Promise<V | null>;
  /** Awaits a write of `id`, then announces the change here and to every replica, also when the write failed. */
  changed<R>(id: string, write: Promise<R>): Promise<R>;
}

/**
 * A bounded cache with explicit invalidation over a change bus. Used where a hot path reads the same small object
 * for every request (a webhook per trigger, an agent and its credential per run): each write through the owning
 * repository calls `changed`, which reaches every replica through the bus; `ttlMs` bounds how long a replica that
 * missed the message (Redis away) serves the old value.
 */
export function createReadCache<V>(opts: ReadCacheOptions): ReadCache<V> {
  const now = opts.now ?? Date.now;
  const bus = opts.bus ?? localChangeBus();
  const prefix = opts.name ? `${opts.name}:` : '';
  const entries = new Map<string, { scope: string; value: V; expires: number }>();
  // Changes seen per id, so that a read which raced with a change is not cached; bounded like the entries.
  const versions = new Map<string, number>();
  bus.onChange((message) => {
    if (!message.startsWith(prefix)) return;
    const id = message.slice(prefix.length);
    entries.delete(id);
    versions.set(id, (versions.get(id) ?? 0) + 1);
    if (versions.size > opts.max) versions.delete(versions.keys().next().value!);
  });

  return {
    async get(id, scope, load) {
      const hit = entries.get(id);
      if (hit && hit.scope === scope && hit.expires > now()) return hit.value;
      const version = versions.get(id);
      const value = await load();
      if (value !== null && versions.get(id) === version) {
        entries.delete(id);
        if (entries.size >= opts.max) entries.delete(entries.keys().next().value!);
        entries.set(id, { scope, value, expires: now() + opts.ttlMs });
      }
      return value;
    },
    async changed(id, write) {
      try {
        return await write;
      } finally {
        bus.publish(`${prefix}${id}`);
      }
    },
  };
}

/**
 * A deep copy of a cached record, for a reader that may change its copy: plain objects, arrays and dates are copied
 * member by member (several times cheaper than `structuredClone` on a record read by every run); any other object
 * (a Buffer, a class instance) goes through `structuredClone`. Records have no cycles.
 */
export function plainCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(plainCopy) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = plainCopy((value as Record<string, unknown>)[key]);
    // A stored key named `__proto__` stays a key: assigning it would set the copy's prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true });
    else out[key] = copy;
  }
  return out as T;
}
