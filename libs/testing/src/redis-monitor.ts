import IORedis from 'ioredis';

/** The commands clients sent to a Redis server, as MONITOR reports them. */
export interface RedisMonitor {
  /** Forgets what was seen so far. */
  reset(): void;
  /** `<command> <first argument>` of each command seen since the last reset. */
  commands(): string[];
  close(): Promise<void>;
}

/**
 * Watches a Redis server (use one of the test's own: MONITOR sees every client). Commands run inside Lua scripts
 * are left out: they are not round trips, the script call that ran them is counted.
 */
export async function monitorRedis(url: string): Promise<RedisMonitor> {
  const client = new IORedis(url, { maxRetriesPerRequest: 1 });
  const monitor = await client.monitor();
  const seen: string[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (!source.includes('lua')) seen.push(args.slice(0, 2).join(' '));
  });
  return {
    reset: () => {
      seen.length = 0;
    },
    commands: () => [...seen],
    close() {
      monitor.disconnect();
      client.disconnect();
      return Promise.resolve();
    },
  };
}
