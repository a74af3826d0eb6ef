import type { Logger } from '@platform/logger';

import { createLanceDbStore } from './lancedb-store';
import type { VectorStore } from './vector-store';

/** Names of the LanceDB adapter, compared without case, spaces, `_` or `-`. */
const LANCEDB_NAMES = new Set(['lancedb', 'lance']);
const normalise = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');

export interface VectorStoresOptions {
  /** A local directory, or an object-store URI (`s3://bucket/path`, `gs://`, `az://`) shared by replicas. */
  uri: string;
  /** Options of the object store (region, endpoint, ...); credentials are read from the environment by default. */
  storageOptions?: Record<string, string>;
  logger: Logger;
}

/**
 * The vector stores of the deployment, one per adapter, opened on first use. `forProvider(name)` picks the adapter a
 * RAG configuration's `vector_store_provider` names; an unknown name (another product's store: qdrant, weaviate, ...)
 * gets the default adapter, LanceDB, and is logged once.
 */
export function createVectorStores(opts: VectorStoresOptions) {
  const lancedb = createLanceDbStore(opts);
  const reported = new Set<string>();
  return {
    default: lancedb,
    forProvider(name: string | null | undefined): VectorStore {
      const key = normalise(name ?? '');
      if (key === '' || LANCEDB_NAMES.has(key)) return lancedb;
      if (!reported.has(key) && reported.size < 100) {
        reported.add(key);
        opts.logger.warn('unknown vector_store_provider; the default vector store is used', {
          vector_store_provider: String(name).slice(0, 64),
          used: lancedb.provider,
        });
      }
      return lancedb;
    },
    async close(): Promise<void> {
      await lancedb.close();
    },
  };
}

export type VectorStores = ReturnType<typeof createVectorStores>;
