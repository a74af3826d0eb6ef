/** What a Redis client needs for `deletePrefix` (ioredis, as BullMQ's connections are). */
interface ScanningClient {
  scan(cursor: string, match: 'MATCH', pattern: string, count: 'COUNT', n: number): Promise<[string, string[]]>;
  del(...keys: string[]): Promise<number>;
}

/** Deletes every key under `prefix:` (what a benchmark's queues left: job scheduler keys, metadata), in SCAN pages. */
export async function deletePrefix(redis: ScanningClient, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
