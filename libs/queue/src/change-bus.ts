import type { RedisConnection } from './connection';

/** Tells every process of a service that an object changed, so each drops what it cached of it. */
export interface ChangeBus {
  /** Announces a change of `id` (to this process too). Never throws: a lost message is bounded by the caches' TTL. */
  publish(id: string): void;
  onChange(listener: (id: string) => void): void;
  close(): Promise<void>;
}

/** A bus within one process (tests, and a single replica). */
export function localChangeBus(): ChangeBus {
  const listeners: ((id: string) => void)[] = [];
  return {
    publish: (id) => listeners.forEach((l) => l(id)),
    onChange: (l) => void listeners.push(l),
    close: () => Promise.resolve(),
  };
}

const busesOf = new WeakMap<object, ChangeBus>();

/** The in-process bus of `owner` (an app's deps, say): one per object, so everything built over it shares it. */
export function localChangeBusOf(owner: object): ChangeBus {
  let bus = busesOf.get(owner);
  if (!bus) busesOf.set(owner, (bus = localChangeBus()));
  return bus;
}

export interface RedisChangeBusOptions {
  /** A connection that publishes (a producer connection: fails fast while Redis is away). */
  publisher: RedisConnection;
  /** A connection of its own: it enters subscriber mode, and resubscribes after reconnecting. */
  subscriber: RedisConnection;
  /** Channel name; the queue prefix keeps deployments sharing one Redis apart. */
  channel: string;
  onError?: (err: Error) => void;
}

/** Changes announced to every replica through Redis pub/sub (and at once to this process). */
export function redisChangeBus(opts: RedisChangeBusOptions): ChangeBus {
  const local = localChangeBus();
  opts.subscriber.on('message', (channel: string, id: string) => {
    if (channel === opts.channel) local.publish(id);
  });
  opts.subscriber.subscribe(opts.channel).catch((err: Error) => opts.onError?.(err));
  return {
    publish(id) {
      local.publish(id);
      opts.publisher.publish(opts.channel, id).catch((err: Error) => opts.onError?.(err));
    },
    onChange: (l) => local.onChange(l),
    async close() {
      await opts.subscriber.unsubscribe(opts.channel).catch(() => undefined);
    },
  };
}
