import type { Page } from '@platform/db';
import { createLiveIndexes } from '@platform/retrieval';

import type { RagConfig } from '../rag/rag.types';
import type { KnowledgeParts, KnowledgeServiceDeps } from './knowledge.deps';
import type { DocumentList } from './knowledge.schemas.types';
import { knowledgeSearch } from './knowledge.search';
import { createTraining } from './knowledge.train';
import type { Owner } from './knowledge.types';

export type { KnowledgeServiceDeps, VectorStores } from './knowledge.deps';

/**
 * The knowledge base of each RAG configuration: documents cut into chunks with their offsets, stored per rag id,
 * searched lexically (BM25, always) and by vectors (when the configuration's embedding credential opens), the two
 * rankings fused; website training goes to the graph service's crawl and is recorded here as a document.
 */
export function createKnowledgeService(deps: KnowledgeServiceDeps) {
  const { repo, logger } = deps;
  const index = createLiveIndexes({
    store: repo.indexStore,
    maxIndexes: deps.maxCachedIndexes ?? 16,
    onError: (err, ragId) => logger.warn('search index update failed', { rag_id: ragId, reason: err.message }),
  });
  /**
   * The knowledge base changed (the repository logged it): this replica applies it now and snapshots its index in
   * the background; other replicas apply it before their next search, which reads the rag id's head first.
   */
  const changed = (ragId: string): void => {
    void index
      .persist(ragId)
      .catch((err: unknown) =>
        logger.warn('search index snapshot not written', { rag_id: ragId, reason: (err as Error).message }),
      );
  };
  const storeOf = (config: RagConfig) => deps.vectors?.forProvider(config.vector_store_provider) ?? null;

  const parts: KnowledgeParts = { ...deps, index, changed, storeOf };
  const training = createTraining(parts);

  return {
    // Training (texts, files, websites): knowledge.train.ts.
    trainTexts: training.trainTexts,

    /** 404 unless the configuration is the caller's: checked before an upload is read. */
    async checkConfig(owner: Owner, ragId: string): Promise<void> {
      await deps.configOf(owner, ragId);
    },

    trainFile: training.trainFile,
    trainWebsite: training.trainWebsite,

    async list(owner: Owner, ragId: string, page: Page): Promise<DocumentList> {
      const config = await deps.configOf(owner, ragId);
      const { items, total } = await repo.list(config.id, page);
      return {
        documents: items.map((d) => ({
          id: d.id,
          source: d.source,
          kind: d.kind,
          metadata: d.metadata,
          chunks: d.chunks,
          created_at: d.created_at,
        })),
        total,
      };
    },

    /**
     * Removes documents with their chunks and vectors, and a website document's pages from the knowledge graph
     * (the graph and the vectors first: nothing is left searchable half-deleted, and a graph that cannot be reached
     * fails the delete, 503, with nothing removed, so that it can be sent again).
     */
    async deleteDocuments(owner: Owner, ragId: string, ids: string[]): Promise<{ deleted: number }> {
      const config = await deps.configOf(owner, ragId);
      const docs = await repo.existing(config.id, [...new Set(ids)]);
      if (docs.length === 0) return { deleted: 0 };
      const websites = docs.filter((d) => d.kind === 'website').map((d) => d.id);
      if (websites.length > 0) await deps.graph.deleteDocuments(owner, config.id, websites);
      const found = docs.map((d) => d.id);
      await storeOf(config)?.deleteDocuments(config.id, found);
      const deleted = await repo.remove(config.id, found);
      changed(config.id);
      return { deleted };
    },

    /** Everything the knowledge base of the configuration holds, the knowledge graph's pages included. */
    async reset(owner: Owner, ragId: string): Promise<{ deleted: number }> {
      const config = await deps.configOf(owner, ragId);
      if (await repo.hasWebsite(config.id)) await deps.graph.reset(owner, config.id);
      return { deleted: await this.drop(config) };
    },

    /**
     * Everything of a configuration (its deletion): documents, chunks, vectors, and its knowledge graph when it has
     * website documents (a graph that cannot be reached then is logged: once the configuration is gone, nobody can
     * read what it kept).
     */
    async drop(config: RagConfig, owner?: Owner): Promise<number> {
      if (owner && (await repo.hasWebsite(config.id)))
        await deps.graph.reset(owner, config.id).catch((err: unknown) =>
          logger.warn('knowledge graph not removed with its configuration', {
            rag_id: config.id,
            reason: (err as Error).message,
          }),
        );
      await storeOf(config)?.reset(config.id);
      const deleted = await repo.reset(config.id);
      changed(config.id);
      return deleted;
    },

    // search and retrieve: knowledge.search.ts.
    ...knowledgeSearch(parts),
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
