import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';

import type { Logger } from '@platform/logger';

import {
  checkRagId,
  checkVector,
  checkVectorId,
  MAX_VECTOR_SEARCH_K,
  VectorDimensionError,
  VectorInputError,
  type VectorHit,
  type VectorStore,
} from './vector-store';

/** Ids put in one delete filter (`id IN (...)`); more are deleted in several statements. */
const DELETE_BATCH = 500;
/** Rag ids whose dimension mismatch at search is remembered (logged once each). */
const MAX_REMEMBERED_MISMATCHES = 1000;
/**
 * Writes to a table from this process between two compactions: each upsert or delete adds a file, and a search
 * reads every file, so they are merged (and old versions pruned) now and then.
 */
export const COMPACT_EVERY_WRITES = 20;

/** A unit-length copy; null for a zero vector (no direction). Stored vectors are unit length, so dot = cosine. */
function unit(v: number[]): number[] | null {
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0 || !Number.isFinite(norm)) return null;
  const k = 1 / Math.sqrt(norm);
  return v.map((x) => x * k);
}

const schemaOf = (dimension: number) =>
  new Schema([
    new Field('id', new Utf8(), false),
    new Field('document_id', new Utf8(), false),
    new Field('vector', new FixedSizeList(dimension, new Field('item', new Float32(), true)), false),
  ]);

/** A checked id list as a filter's string literals (ids are already restricted to [A-Za-z0-9_.:-]; quotes doubled). */
const quoted = (ids: string[]) => ids.map((id) => `'${id.replace(/'/g, "''")}'`).join(', ');

const isMissingTable = (err: unknown) => /not found|does not exist|no such table/i.test((err as Error)?.message ?? '');

/**
 * The LanceDB adapter: an embedded vector database (no server) writing Lance files to a local directory or an
 * object store, so several replicas given the same URI share the vectors. One table per rag id (`rag_<24 hex>`),
 * created by the first upsert with that upsert's dimension. Reads check the table's latest version on every call
 * (another replica may have written), and writes to one table from this process go one at a time.
 */
export function createLanceDbStore(opts: {
  uri: string;
  storageOptions?: Record<string, string>;
  logger: Logger;
}): VectorStore {
  let connection: Promise<lancedb.Connection> | null = null;
  const connect = () => {
    connection ??= lancedb.connect(opts.uri, {
      readConsistencyInterval: 0,
      ...(opts.storageOptions ? { storageOptions: opts.storageOptions } : {}),
    });
    return connection;
  };
  const tableName = (ragId: string) => `rag_${checkRagId(ragId)}`;

  /** The per-table write queue: each write starts when the previous one of its table has settled. */
  const queues = new Map<string, Promise<unknown>>();
  function serialized<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const previous = queues.get(name) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    queues.set(name, tail);
    void tail.then(() => {
      if (queues.get(name) === tail) queues.delete(name);
    });
    return run;
  }

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

  async function dimensionOf(table: lancedb.Table): Promise<number> {
    const type: unknown = (await table.schema()).fields.find((f) => f.name === 'vector')?.type;
    if (type instanceof FixedSizeList) return type.listSize;
    const size = (type as { listSize?: unknown } | undefined)?.listSize; // another copy of apache-arrow's classes
    return typeof size === 'number' ? size : 0;
  }

  const mismatches = new Set<string>();
  /** Writes per table since its last compaction. */
  const writes = new Map<string, number>();
  /** Counts a write; every COMPACT_EVERY_WRITES, merges the table's files (inside the table's write queue). */
  async function wrote(name: string, table: lancedb.Table): Promise<void> {
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
      opts.logger.warn('vector table compaction failed; it is tried again later', {
        table: name,
        reason: (err as Error).message,
      });
    }
  }
  const deleteWhere = async (ragId: string, column: 'id' | 'document_id', ids: string[]): Promise<number> => {
    const name = tableName(ragId);
    const unique = [...new Set(ids.map((id) => checkVectorId(id, column)))];
    if (unique.length === 0) return 0;
    return serialized(name, () =>
      withTable(name, 0, async (table) => {
        let removed = 0;
        for (let i = 0; i < unique.length; i += DELETE_BATCH) {
          const res = await table.delete(`${column} IN (${quoted(unique.slice(i, i + DELETE_BATCH))})`);
          removed += res.numDeletedRows;
        }
        if (removed > 0) await wrote(name, table);
        return removed;
      }),
    );
  };

  return {
    provider: 'lancedb',

    async upsert(ragId, rows) {
      const name = tableName(ragId);
      if (rows.length === 0) return;
      const dimension = checkVector(rows[0]!.vector).length;
      const byId = new Map<string, Record<string, unknown>>();
      for (const row of rows) {
        checkVectorId(row.id, 'id');
        checkVectorId(row.document_id, 'document_id');
        if (checkVector(row.vector).length !== dimension) throw new VectorDimensionError(dimension, row.vector.length);
        const vector = unit(row.vector);
        if (!vector) throw new VectorInputError('vector', 'vector has no direction (all zeros)');
        byId.set(row.id, { id: row.id, document_id: row.document_id, vector });
      }
      await serialized(name, async () => {
        const table = (await openTable(name)) ?? (await createTable(name, dimension));
        try {
          const stored = await dimensionOf(table);
          if (stored !== dimension) throw new VectorDimensionError(stored, dimension);
          await table
            .mergeInsert('id')
            .whenMatchedUpdateAll()
            .whenNotMatchedInsertAll()
            .execute([...byId.values()]);
          await wrote(name, table);
        } finally {
          table.close();
        }
      });
    },

    async search(ragId, vector, k) {
      const name = tableName(ragId);
      checkVector(vector);
      const limit = Math.min(Math.floor(k), MAX_VECTOR_SEARCH_K);
      const query = unit(vector);
      if (!(limit > 0) || !query) return [];
      return withTable(name, [] as VectorHit[], async (table) => {
        const stored = await dimensionOf(table);
        if (stored !== query.length) {
          if (!mismatches.has(name)) {
            if (mismatches.size >= MAX_REMEMBERED_MISMATCHES) mismatches.clear();
            mismatches.add(name);
            opts.logger.warn('query vector of another dimension than the stored vectors; no vector results', {
              rag_id: ragId,
              stored,
              query: vector.length,
            });
          }
          return [];
        }
        const found = (await table
          .vectorSearch(query)
          // Unit vectors on both sides: the dot product is the cosine similarity, at half the cost of 'cosine'.
          .distanceType('dot')
          .select(['id', 'document_id', '_distance'])
          .limit(limit)
          .toArray()) as { id: string; document_id: string; _distance: number }[];
        return found
          .map((r) => ({ id: r.id, document_id: r.document_id, score: 1 - r._distance }))
          .filter((h) => Number.isFinite(h.score));
      });
    },

    deleteDocuments: (ragId, documentIds) => deleteWhere(ragId, 'document_id', documentIds),
    deleteIds: (ragId, ids) => deleteWhere(ragId, 'id', ids),

    async reset(ragId) {
      const name = tableName(ragId);
      await serialized(name, async () => {
        writes.delete(name);
        const db = await connect();
        try {
          await db.dropTable(name);
        } catch (err) {
          if (!isMissingTable(err)) throw err;
        }
      });
    },

    async count(ragId) {
      return withTable(tableName(ragId), 0, (table) => table.countRows());
    },

    async close() {
      const open = connection;
      connection = null;
      if (open) (await open).close();
    },
  };
}
