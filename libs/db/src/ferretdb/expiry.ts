import { quoteLiteral, tableOf, withPg } from './indexes';

/**
 * TTL indexes, which FerretDB refuses: created without `expireAfterSeconds`, and every `everyMs` one DELETE per TTL
 * index removes what MongoDB's TTL monitor would (dates only, up to a period late), served by FerretDB's btree index.
 */
export function createExpiry(url: string, dbName: string, everyMs: number) {
  /** By collection and index name. */
  const ttls = new Map<string, { collection: string; field: string; seconds: number }>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const sweep = (now = Date.now()) =>
    withPg(url, async (client) => {
      for (const { collection, field, seconds } of ttls.values()) {
        const table = await tableOf(client, dbName, collection);
        const f = quoteLiteral(field);
        if (table)
          await client.query(
            `DELETE FROM ${table} WHERE (_jsonb -> ${f}) <= $1::jsonb AND (_jsonb -> '$s' -> 'p' -> ${f} ->> 't') = 'date'`,
            [String(now - seconds * 1000)],
          );
      }
    });
  return {
    register(collection: string, name: string, field: string, seconds: number): void {
      ttls.set(`${collection}\u0000${name}`, { collection, field, seconds });
      // One sweep at a time; a failed one (the store away) is the next one's work.
      timer ??= setInterval(
        () =>
          void (running ??= sweep()
            .catch(() => undefined)
            .finally(() => (running = null))),
        everyMs,
      );
      timer.unref();
    },
    unregister: (collection: string, name: string) => ttls.delete(`${collection}\u0000${name}`),
    sweep: () => (ttls.size ? sweep() : Promise.resolve()),
    stop: () => timer && clearInterval(timer),
  };
}
