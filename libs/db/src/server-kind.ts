import type { Connection } from 'mongoose';

/** How single-document updates are made atomic on the connected server (see `atomicUpdateOne`). */
export type AtomicStrategy = 'native' | 'claims';

const strategies = new WeakMap<Connection, Promise<AtomicStrategy>>();

/** 'claims' on FerretDB (detected by its buildInfo), 'native' on MongoDB. Cached per connection. */
export function atomicStrategy(conn: Connection): Promise<AtomicStrategy> {
  let s = strategies.get(conn);
  if (!s) {
    s = (async () => {
      const db = conn.db;
      if (!db) throw new Error('connection is not open');
      const info = await db.admin().command({ buildInfo: 1 });
      return 'ferretdbVersion' in info ? 'claims' : 'native';
    })();
    s.catch(() => strategies.delete(conn));
    strategies.set(conn, s);
  }
  return s;
}
