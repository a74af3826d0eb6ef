import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';

import type { Logger } from '@platform/logger';

/** Rag ids whose dimension mismatch at search is remembered (logged once each). */
export const MAX_REMEMBERED_MISMATCHES = 1000;
/**
 * Writes to a table from this process between two compactions: each upsert or delete adds a file, and a search
 * reads every file, so they are merged (and old versions pruned) now and then.
 */
export const COMPACT_EVERY_WRITES = 20;

const schemaOf = (dimension: number) =>
  new Schema([
    new Field('id', new Utf8(), false),
    new Field('document_id', new Utf8(), false),
    new Field('vector', new FixedSizeList(dimension, new Field('item', new Float32(), true)), false),
  ]);

export const isMissingTable = (err: unknown) =>
  /not found|does not exist|no such table/i.test((err as Error)?.message ?? '');

/** The dimension of the table's vectors (0 when it has none). */
export async function dimensionOf(table: lancedb.Table): Promise<number> {
  const type: unknown = (await table.schema()).fields.find((f) => f.name === 'vector')?.type;
  if (type instanceof FixedSizeList) return type.listSize;
  const size = (type as { listSize?: unknown } | undefined)?.listSize; // another copy of apache-arrow's classes
  return typeof size === 'number' ? size : 0;
}

/** The connection to the LanceDB database (made on first use) and its tables, by table name. */
export function createLanceDbTables(opts: { uri: string; storageOptions?: Record<string, string> }) {
  let connection: Promise<lancedb.Connection> | null = null;
  const connect = () => {
    connection ??= lancedb.connect(opts.uri, {
      readConsistencyInterval: 0,
      ...(opts.storageOptions ? { storageOptions: opts.storageOptions } : {}),
    });
    return connection;
  };

  /** The rag id's table (opening one is cheap: LanceDB caches its metadata); null when there is none. */
  async function openTable(name: string): Promise<lancedb.Table | null> {
    const db = await connect();
    try {
      return await db.openTable(name);
    } catch (err) {
      if (isMissingTable(err)) return null;
      throw err;
    }
  }

  /** A new table; when another replica has just created it (with its own dimension), that one. */
  async function createTable(name: string, dimension: number): Promise<lancedb.Table> {
    const db = await connect();
    try {
      return await db.createEmptyTable(name, schemaOf(dimension), { mode: 'create', existOk: true });
    } catch (err) {
      if (!/schema/i.test((err as Error).message)) throw err;
      return db.openTable(name);
    }
  }

  /** Runs `fn` on the table, opened for the call and closed after it; `missing` when the rag id has no table. */
  async function withTable<T>(name: string, missing: T, fn: (table: lancedb.Table) => Promise<T>): Promise<T> {
    const table = await openTable(name);
    if (!table) return missing;
    try {
      return await fn(table);
    } finally {
      table.close();
    }
  }

  return {
    connect,
    openTable,
    createTable,
    withTable,
    /** Closes the connection (a later call makes a new one). */
    async close(): Promise<void> {
      const open = connection;
      connection = null;
      if (open) (await open).close();
    },
  };
}

/** Counts the writes to each table and merges a table's files every COMPACT_EVERY_WRITES of them. */
export function createCompactions(logger: Logger) {
  /** Writes per table since its last compaction. */
  const writes = new Map<string, number>();
  return {
    /** Counts a write; every COMPACT_EVERY_WRITES, merges the table's files (inside the table's write queue). */
    async wrote(name: string, table: lancedb.Table): Promise<void> {
      const n = (writes.get(name) ?? 0) + 1;
      if (n < COMPACT_EVERY_WRITES) {
        if (writes.size >= MAX_REMEMBERED_MISMATCHES && !writes.has(name)) writes.clear();
        writes.set(name, n);
        return;
      }
      writes.delete(name);
      try {
        await table.optimize();
      } catch (err) {
        logger.warn('vector table compaction failed; it is tried again later', {
          table: name,
          reason: (err as Error).message,
        });
      }
    },
    /** Forgets the writes counted for a table (it was dropped). */
    forget(name: string): void {
      writes.delete(name);
    },
  };
}
