import type { Logger } from '@platform/logger';

import type { RedisConnection } from './connection';

/**
 * Concurrency limits shared by every process (e.g. "at most 3 runs of this agent at once, across workers"): a slot
 * is a Redis sorted set of the holders in flight (score: when the holder's lease ends), and a wait list per slot
 * keeps the holders that found it full in the order they first asked (score: their arrival). A holder that asks
 * again while earlier ones still wait is refused, so waiting holders start in order. A holder is granted only when
 * every slot it names has room (an agent's limit and a webhook's at once), in one script, so that two processes
 * asking together never overfill a slot.
 *
 * Holders that stop without releasing (a worker killed) free their place when their lease ends; waiters that stop
 * asking are dropped after `waitTtlMs`. The caller renews a long hold (`renew`) and, on `release`, learns the first
 * waiters of each slot (as many as have room), to wake them at once instead of at their next check.
 *
 * All keys carry one hash tag (`{<prefix>:gate}`), so the script's keys are on one node of a Redis Cluster.
 */
export interface GateSlot {
  /** The limit's name, e.g. `agent:<id>` or `webhook:<id>`. */
  key: string;
  /** Holders allowed at once (≥ 1). */
  limit: number;
}

export type GateAnswer = { granted: true } | { granted: false; position: number };

export interface ConcurrencyGate {
  /** Takes a place in every slot, or joins their wait lists (`position`: holders ahead, 0-based, in the fullest). */
  acquire(holder: string, slots: GateSlot[], arrival: number): Promise<GateAnswer>;
  /** Extends the holder's lease in its slots. */
  renew(holder: string, slots: GateSlot[]): Promise<void>;
  /** Frees the holder's places (and its waits); the first waiters of each slot (as many as it has room for), to wake. */
  release(holder: string, slots: GateSlot[]): Promise<string[]>;
  /** Holders in flight in a slot (leases not yet ended). */
  holders(key: string): Promise<string[]>;
  /**
   * Publishes a resource's limit (its owner does, on create, update and delete: `null` removes it), for the
   * processes that run its work to read with `limits`.
   */
  setLimit(key: string, limit: number | null): Promise<void>;
  /** The published limits of these keys, as slots (keys without one are left out: no limit). One command. */
  limits(keys: string[]): Promise<GateSlot[]>;
}

export interface ConcurrencyGateOptions {
  redis: RedisConnection;
  /** Key prefix (the queue prefix of the deployment). */
  prefix: string;
  /** A hold ends this long after it was granted or renewed unless renewed (a crashed holder frees its place). */
  leaseMs: number;
  /** A waiter that has not asked again for this long loses its place in line. */
  waitTtlMs: number;
  now?: () => number;
}

// KEYS: per slot i (1-based): held_i = KEYS[3i-2], wait_i = KEYS[3i-1], seen_i = KEYS[3i]
// ARGV: holder, now, leaseEnd, arrival, waitCutoff, leaseMs, waitTtlMs, limit_1..limit_n
const ACQUIRE = `
local holder = ARGV[1]
local now = tonumber(ARGV[2])
local leaseEnd = ARGV[3]
local arrival = ARGV[4]
local cutoff = tonumber(ARGV[5])
local leaseMs = ARGV[6]
local waitTtlMs = ARGV[7]
local n = #KEYS / 3
local blocked = false
local position = 0
for i = 1, n do
  local held, wait, seen = KEYS[3*i-2], KEYS[3*i-1], KEYS[3*i]
  redis.call('ZREMRANGEBYSCORE', held, '-inf', now)
  local gone = redis.call('ZRANGEBYSCORE', seen, '-inf', cutoff)
  if #gone > 0 then
    redis.call('ZREM', wait, unpack(gone))
    redis.call('ZREM', seen, unpack(gone))
  end
  if redis.call('ZSCORE', held, holder) == false then
    local room = tonumber(ARGV[7 + i]) - redis.call('ZCARD', held)
    local ahead = redis.call('ZCOUNT', wait, '-inf', '(' .. arrival)
    local rank = redis.call('ZRANK', wait, holder)
    if rank ~= false then ahead = rank end
    if room <= ahead then
      blocked = true
      if ahead - room + 1 > position then position = ahead - room + 1 end
    end
  end
end
if blocked then
  for i = 1, n do
    redis.call('ZADD', KEYS[3*i-1], 'NX', arrival, holder)
    redis.call('ZADD', KEYS[3*i], now, holder)
    redis.call('PEXPIRE', KEYS[3*i-1], waitTtlMs)
    redis.call('PEXPIRE', KEYS[3*i], waitTtlMs)
  end
  return position
end
for i = 1, n do
  redis.call('ZADD', KEYS[3*i-2], leaseEnd, holder)
  redis.call('ZREM', KEYS[3*i-1], holder)
  redis.call('ZREM', KEYS[3*i], holder)
  redis.call('PEXPIRE', KEYS[3*i-2], leaseMs)
end
return -1
`;

// KEYS: as ACQUIRE. ARGV: holder, leaseEnd, leaseMs. Renews only places the holder has. Keys expire relative to
// Redis's own clock (PEXPIRE), never at an instant of the caller's, which may differ.
const RENEW = `
for i = 1, #KEYS / 3 do
  if redis.call('ZSCORE', KEYS[3*i-2], ARGV[1]) ~= false then
    redis.call('ZADD', KEYS[3*i-2], 'XX', ARGV[2], ARGV[1])
    redis.call('PEXPIRE', KEYS[3*i-2], ARGV[3])
  end
end
return 0
`;

// KEYS: as ACQUIRE. ARGV: holder, limit_1..limit_n. Returns the first waiters of each slot, as many as it has room
// for now (at least the first): when several places free at once, each woken waiter takes one, none waits for its
// next check. A waiter woken that finds no room (a slot it also waits in is full) simply parks again.
const RELEASE = `
local next = {}
for i = 1, #KEYS / 3 do
  redis.call('ZREM', KEYS[3*i-2], ARGV[1])
  redis.call('ZREM', KEYS[3*i-1], ARGV[1])
  redis.call('ZREM', KEYS[3*i], ARGV[1])
  local room = tonumber(ARGV[1 + i]) - redis.call('ZCARD', KEYS[3*i-2])
  if room < 1 then room = 1 end
  for _, w in ipairs(redis.call('ZRANGE', KEYS[3*i-1], 0, room - 1)) do
    next[#next + 1] = w
  end
end
return next
`;

/** A concurrency gate on Redis (see the module comment). */
export function createConcurrencyGate(opts: ConcurrencyGateOptions): ConcurrencyGate {
  const now = opts.now ?? Date.now;
  const tag = `{${opts.prefix}:gate}`;
  const keysOf = (slots: GateSlot[]) =>
    slots.flatMap((s) => [`${tag}:held:${s.key}`, `${tag}:wait:${s.key}`, `${tag}:seen:${s.key}`]);
  const checked = (slots: GateSlot[]) => {
    for (const s of slots)
      if (!Number.isInteger(s.limit) || s.limit < 1) throw new RangeError(`gate limit of ${s.key} must be ≥ 1`);
    return slots;
  };
  return {
    async acquire(holder, slots, arrival) {
      if (checked(slots).length === 0) return { granted: true };
      const t = now();
      const keys = keysOf(slots);
      const answer = (await opts.redis.eval(
        ACQUIRE,
        keys.length,
        ...keys,
        holder,
        t,
        t + opts.leaseMs,
        arrival,
        t - opts.waitTtlMs,
        opts.leaseMs,
        opts.waitTtlMs,
        ...slots.map((s) => s.limit),
      )) as number;
      return answer < 0 ? { granted: true } : { granted: false, position: answer - 1 };
    },
    async renew(holder, slots) {
      if (slots.length === 0) return;
      const keys = keysOf(slots);
      await opts.redis.eval(RENEW, keys.length, ...keys, holder, now() + opts.leaseMs, opts.leaseMs);
    },
    async release(holder, slots) {
      if (slots.length === 0) return [];
      const keys = keysOf(slots);
      const limits = slots.map((s) => s.limit);
      const next = (await opts.redis.eval(RELEASE, keys.length, ...keys, holder, ...limits)) as string[];
      return [...new Set(next.filter((h) => h !== ''))];
    },
    async holders(key) {
      return opts.redis.zrangebyscore(`${tag}:held:${key}`, `(${now()}`, '+inf');
    },
    async setLimit(key, limit) {
      if (limit === null) await opts.redis.del(`${tag}:limit:${key}`);
      else await opts.redis.set(`${tag}:limit:${key}`, String(checked([{ key, limit }])[0]!.limit));
    },
    async limits(keys) {
      if (keys.length === 0) return [];
      const values = await opts.redis.mget(...keys.map((k) => `${tag}:limit:${k}`));
      return keys.flatMap((key, i) => {
        const limit = Number(values[i]);
        return values[i] !== null && Number.isInteger(limit) && limit >= 1 ? [{ key, limit }] : [];
      });
    },
  };
}

/** The limit names of the resources that have one (contract §8 `max_concurrency`): their owners and the worker agree. */
export const limitKeys = {
  agent: (id: string | number): string => `agent:${id}`,
  webhook: (id: string): string => `webhook:${id}`,
};

export interface LimitRepublisherOptions {
  gate: Pick<ConcurrencyGate, 'setLimit'>;
  /** Every limit the owner holds now (its resources with `max_concurrency` set). */
  read: () => Promise<GateSlot[]>;
  intervalMs: number;
  onError: (err: Error) => void;
}

/**
 * Publishes an owner's limits again, at once and every `intervalMs`: Redis keeps nothing on disk, so a restarted
 * Redis has lost them. (A limit removed is deleted by the removal itself; only set ones are published here.)
 */
export function startLimitRepublisher(opts: LimitRepublisherOptions): { stop: () => Promise<void> } {
  let running: Promise<void> | null = null;
  const round = () => {
    if (running) return;
    running = (async () => {
      try {
        const slots = await opts.read();
        await Promise.all(slots.map((s) => opts.gate.setLimit(s.key, s.limit)));
      } catch (err) {
        opts.onError(err as Error);
      } finally {
        running = null;
      }
    })();
  };
  round();
  const timer = setInterval(round, opts.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** How often owners publish their limits again (Redis keeps nothing on disk: a restarted Redis has lost them). */
export const LIMIT_REPUBLISH_MS = 60_000;

/** Where a resource's `max_concurrency` goes for the worker to apply: the gate's limit `<kind>:<id>`. */
export interface LimitPublisher {
  /** Publishes the resource's limit (`null`: none). Never fails the edit: a limit not published is logged. */
  publish(id: string | number, limit: number | null): Promise<void>;
}

/** The publisher of one kind of resource (`agent`, `webhook`) on the gate. */
export function limitPublisher(
  gate: Pick<ConcurrencyGate, 'setLimit'>,
  kind: keyof typeof limitKeys,
  logger: Logger,
): LimitPublisher {
  return {
    async publish(id, limit) {
      try {
        await gate.setLimit(`${kind}:${id}`, limit);
      } catch (err) {
        // The resource is saved; a limit set is published again within a minute (republishLimits).
        logger.warn(`${kind} max_concurrency not published`, {
          [`${kind}_id`]: id,
          max_concurrency: limit,
          err: (err as Error).message,
        });
      }
    },
  };
}

/**
 * Publishes every limit of one kind of resource at startup and every `intervalMs` (a unit for main.ts). `read`
 * lists the resources with a limit set: the resource document stays the only source of truth (no second collection
 * of limits to keep in step with every edit).
 */
export function republishLimits(deps: {
  kind: keyof typeof limitKeys;
  read: () => Promise<{ id: string | number; max_concurrency: number }[]>;
  gate: Pick<ConcurrencyGate, 'setLimit'>;
  logger: Logger;
  intervalMs?: number;
}): { name: string; stop: () => Promise<void> } {
  const unit = startLimitRepublisher({
    gate: deps.gate,
    intervalMs: deps.intervalMs ?? LIMIT_REPUBLISH_MS,
    read: async () => (await deps.read()).map((r) => ({ key: `${deps.kind}:${r.id}`, limit: r.max_concurrency })),
    onError: (err) => deps.logger.warn(`${deps.kind} limits not republished; next try soon`, { err: err.message }),
  });
  return { name: `${deps.kind} limits`, stop: unit.stop };
}
