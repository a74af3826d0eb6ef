import { createHash } from 'node:crypto';
import { Client } from 'pg';

import { ServiceUnavailableError } from '@platform/errors';

import { asOutage } from './indexes';

/**
 * Document locks: held from before FerretDB reads a document to after it writes it back, first in this process (the
 * others wait in line), then as a PostgreSQL advisory lock, which goes with its session when a process dies. All of a
 * process's locks are taken and freed on one session, batched (what arrives during a statement goes in the next).
 * Another process's lock is tried again after a short random pause; past `waitMs` the write fails with 503.
 */
export interface DocLocks {
  /** Runs `fn` holding the locks of `keys` (equal strings are the same lock). */
  hold<T>(keys: string[], fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A key's advisory lock number: 64 bits of its SHA-1, as PostgreSQL's signed bigint. */
const lockNumber = (key: string) => createHash('sha1').update(key).digest().readBigInt64BE(0).toString();
const TRY_AND_FREE = `SELECT
  (SELECT count(pg_advisory_unlock(k)) FROM unnest($1::bigint[]) AS k) AS freed,
  coalesce((SELECT array_agg(pg_try_advisory_lock(k) ORDER BY i) FROM unnest($2::bigint[]) WITH ORDINALITY AS t(k, i)), '{}') AS granted`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createDocLocks(url: string, waitMs = 10_000): DocLocks {
  let client: Promise<Client> | null = null;
  let busy = false;
  let asks: { numbers: string[]; resolve: (granted: boolean[]) => void; reject: (err: unknown) => void }[] = [];
  let frees: string[] = [];
  /** Per key, the end of the line of this process's holders. */
  const lines = new Map<string, Promise<void>>();
  const session = () =>
    (client ??= (async () => {
      const c = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
      const lost = () => void (client = null); // a lost session lost its locks too: the next batch opens another
      c.on('error', lost).on('end', lost);
      await c.connect();
      return c;
    })().catch((err: unknown) => {
      client = null;
      throw err;
    }));
  /** One statement: frees what is to be freed, tries what is asked. */
  function pump(): void {
    if (busy || (asks.length === 0 && frees.length === 0)) return;
    busy = true;
    const [batch, free] = [asks, frees];
    [asks, frees] = [[], []];
    void session()
      .then((c) => c.query<{ granted: boolean[] }>(TRY_AND_FREE, [free, batch.flatMap((a) => a.numbers)]))
      .then((res) => {
        const granted = res.rows[0]?.granted ?? [];
        let at = 0;
        for (const a of batch) a.resolve(granted.slice(at, (at += a.numbers.length)));
      })
      .catch((err: unknown) => batch.forEach((a) => a.reject(asOutage(err))))
      .finally(() => {
        busy = false;
        pump();
      });
  }
  const unlock = (numbers: string[]) => {
    frees.push(...numbers);
    pump();
  };
  /** Waits for this process's earlier holders of `key`; returns the release of this holder's place. */
  async function queue(key: string): Promise<() => void> {
    const before = lines.get(key) ?? Promise.resolve();
    let release!: () => void;
    const end = before.then(() => new Promise<void>((r) => (release = r)));
    lines.set(key, end);
    await before;
    return () => {
      release();
      if (lines.get(key) === end) lines.delete(key);
    };
  }
  /** Takes the advisory locks of `keys`, waiting out other processes' holders. */
  async function take(keys: string[]): Promise<void> {
    const deadline = Date.now() + waitMs;
    let missing = keys;
    try {
      for (let round = 0; missing.length > 0; round++) {
        if (round > 0 && Date.now() > deadline)
          throw new ServiceUnavailableError(new Error(`document lock ${missing[0]} stayed held by another process`));
        if (round > 0) await sleep(Math.random() * Math.min(2 ** round, 50));
        const numbers = missing.map(lockNumber);
        const granted = await new Promise<boolean[]>((resolve, reject) => {
          asks.push({ numbers, resolve, reject });
          pump();
        });
        missing = missing.filter((_, i) => granted[i] !== true);
      }
    } catch (err) {
      unlock(keys.filter((k) => !missing.includes(k)).map(lockNumber));
      throw err;
    }
  }
  return {
    async hold(keys, fn) {
      // In one order, so that two holders of overlapping keys never wait for each other.
      const sorted = [...new Set(keys)].sort();
      const releases: (() => void)[] = [];
      try {
        for (const k of sorted) releases.push(await queue(k));
        await take(sorted);
        try {
          return await fn();
        } finally {
          unlock(sorted.map(lockNumber));
        }
      } finally {
        releases.forEach((r) => r());
      }
    },
    async close() {
      const c = client;
      client = null;
      await (await c?.catch(() => null))?.end().catch(() => undefined);
    },
  };
}
