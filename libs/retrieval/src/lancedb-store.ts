import type * as lancedb from '@lancedb/lancedb';

import type { Logger } from '@platform/logger';

import { createKeyedQueue } from './keyed-queue';
import {
  createCompactions,
  createLanceDbTables,
  dimensionOf,
  isMissingTable,
  MAX_REMEMBERED_MISMATCHES,
} from './lancedb-tables';
import {
  checkRagId,
  checkVector,
  checkVectorId,
  MAX_VECTOR_SEARCH_K,
  VectorDimensionError,
  VectorInputError,
  type VectorHit,
  type VectorRow,
  type VectorStore,
} from './vector-store';

export { COMPACT_EVERY_WRITES } from './lancedb-tables';

/** Ids put in one delete filter (`id IN (...)`); more are deleted in several statements. */
const DELETE_BATCH = 500;

/** A unit-length copy; null for a zero vector (no direction). Stored vectors are unit length, so dot = cosine. */
function unit(v: number[]): number[] | null {
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0 || !Number.isFinite(norm)) return null;
  const k = 1 / Math.sqrt(norm);
  return v.map((x) => x * k);
}

/** A checked id list as a filter's string literals (ids are already restricted to [A-Za-z0-9_.:-]; quotes doubled). */
const quoted = (ids: string[]) => ids.map((id) => `'${id.replace(/'/g, "''")}'`).join(', ');

/** Checked rows as they are stored (unit vectors, the last row of each id), and their dimension. */
function storedRows(rows: VectorRow[]): { dimension: number; byId: Map<string, Record<string, unknown>> } {
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
  return { dimension, byId };
}

/** Writes the rows into the table, replacing those of the same id; their dimension must be the table's. */
async function mergeRows(table: lancedb.Table, dimension: number, rows: Record<string, unknown>[]): Promise<void> {
  const stored = await dimensionOf(table);
  if (stored !== dimension) throw new VectorDimensionError(stored, dimension);
  await table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
}

/** Deletes the rows whose `column` is one of the (checked, distinct) ids; the number of rows removed. */
async function deleteRows(table: lancedb.Table, column: 'id' | 'document_id', ids: string[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < ids.length; i += DELETE_BATCH) {
    const res = await table.delete(`${column} IN (${quoted(ids.slice(i, i + DELETE_BATCH))})`);
    removed += res.numDeletedRows;
  }
  return removed;
}

/** The `limit` rows of the table closest to the unit vector `query`, with their cosine similarity. */
async function nearest(table: lancedb.Table, query: number[], limit: number): Promise<VectorHit[]> {
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
}

/** Logs a search's query vector of another dimension than the table's, once per table. */
function mismatchWarner(logger: Logger) {
  const mismatches = new Set<string>();
  return (name: string, fields: { rag_id: string; stored: number; query: number }): void => {
    if (mismatches.has(name)) return;
    if (mismatches.size >= MAX_REMEMBERED_MISMATCHES) mismatches.clear();
    mismatches.add(name);
    logger.warn('query vector of another dimension than the stored vectors; no vector results', fields);
  };
}

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
  const tables = createLanceDbTables(opts);
  const compactions = createCompactions(opts.logger);
  const warnMismatch = mismatchWarner(opts.logger);
  const tableName = (ragId: string) => `rag_${checkRagId(ragId)}`;
  /** The per-table write queue: each write starts when the previous one of its table has settled. */
  const serialized = createKeyedQueue();

  const deleteWhere = async (ragId: string, column: 'id' | 'document_id', ids: string[]): Promise<number> => {
    const name = tableName(ragId);
    const unique = [...new Set(ids.map((id) => checkVectorId(id, column)))];
    if (unique.length === 0) return 0;
    return serialized(name, () =>
      tables.withTable(name, 0, async (table) => {
        const removed = await deleteRows(table, column, unique);
        if (removed > 0) await compactions.wrote(name, table);
        return removed;
      }),
    );
  };

  return {
    provider: 'lancedb',

    async upsert(ragId, rows) {
      const name = tableName(ragId);
      if (rows.length === 0) return;
      const { dimension, byId } = storedRows(rows);
      await serialized(name, async () => {
        const table = (await tables.openTable(name)) ?? (await tables.createTable(name, dimension));
        try {
          await mergeRows(table, dimension, [...byId.values()]);
          await compactions.wrote(name, table);
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
      return tables.withTable(name, [] as VectorHit[], async (table) => {
        const stored = await dimensionOf(table);
        if (stored !== query.length) {
          warnMismatch(name, { rag_id: ragId, stored, query: vector.length });
          return [];
        }
        return nearest(table, query, limit);
      });
    },

    deleteDocuments: (ragId, documentIds) => deleteWhere(ragId, 'document_id', documentIds),
    deleteIds: (ragId, ids) => deleteWhere(ragId, 'id', ids),

    async reset(ragId) {
      const name = tableName(ragId);
      await serialized(name, async () => {
        compactions.forget(name);
        const db = await tables.connect();
        try {
          await db.dropTable(name);
        } catch (err) {
          if (!isMissingTable(err)) throw err;
        }
      });
    },

    async count(ragId) {
      return tables.withTable(tableName(ragId), 0, (table) => table.countRows());
    },

    close: () => tables.close(),
  };
}
