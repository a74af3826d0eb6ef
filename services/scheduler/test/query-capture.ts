import type { Connection } from '@platform/db';

/** A query a repository sent: its collection, method and filter. */
export interface Captured {
  collection: string;
  method: string;
  filter: Record<string, unknown>;
}

/**
 * Records into `into` every filtered query the connection's models send from now on (mongoose's debug hook):
 * inserts, index builds and queries with an empty or non-object filter left out.
 */
export function captureQueries(conn: Connection, into: Captured[]): void {
  conn.set('debug', (collection: string, method: string, ...args: unknown[]) => {
    const filter = args[0];
    if (
      method.startsWith('insert') ||
      method === 'createIndex' ||
      !filter ||
      typeof filter !== 'object' ||
      Array.isArray(filter)
    )
      return;
    if (Object.keys(filter).length === 0) return;
    into.push({ collection, method, filter: filter as Record<string, unknown> });
  });
}
