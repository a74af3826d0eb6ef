import type { Owner } from '@platform/db';
import type { Logger } from '@platform/logger';
import { createReadCache, type ChangeBus } from '@platform/queue';
import type { LiveIndexes } from '@platform/retrieval';

import type { Crawl } from '../crawl/crawler';
import type { Models } from '../providers/models';
import type { RagClient, RagConfig } from '../rag/rag.client';
import type { GraphRepository } from './graph.repository';
import type { Graph, Retrieval } from './graph.schemas.types';
import { graphOf, retrievalOf } from './graph.views';
import { trainPage } from './page-trainer';
import { createPageWriter } from './page-writer';
import type { TrainInput, TrainOutcome, TrainProgress } from './train.types';

export interface GraphServiceDeps {
  repo: GraphRepository;
  rag: RagClient;
  crawl: Crawl;
  /** What the pipeline and retrieval use per RAG configuration: its LLM and embedding credentials, or local. */
  models: Models;
  /** The search indexes, kept up to date from the change log the repository writes. */
  indexes: LiveIndexes;
  /** Tells every replica (this one too) that a graph's index changed. */
  changes: ChangeBus;
  clock: () => Date;
  logger: Logger;
}

/**
 * How long a replica serves retrievals of a RAG configuration without asking the rag service again whether it is the
 * caller's (and which credentials it names): a search is then one hop shorter. Per owner, so no other caller is ever
 * answered from it; dropped on every replica when the graph is reset (as when its configuration is deleted).
 */
export const RAG_CONFIG_TTL_MS = 5_000;

/** The service's `train`, over its deps and the writer of its index snapshots. */
function createTrain(deps: GraphServiceDeps, persistIndex: (ragId: string) => Promise<unknown>) {
  const { repo } = deps;
  /** Crawls and trains; every page is stored as soon as it is read, so a stopped run keeps what it did. */
  return async function train(
    owner: Owner,
    ragId: string,
    input: TrainInput,
    progress: TrainProgress = {},
    sourceId?: string,
  ): Promise<TrainOutcome> {
    const config = await deps.rag.configOf(owner, ragId);
    const models = await deps.models.forTraining(owner, config);
    let trained = 0;
    // This replica holds the graph's index while it trains it: each batch is applied as it is stored, and the
    // snapshot at the end is of that index (a new graph starts empty; nothing is rebuilt).
    void deps.indexes.size(ragId).catch(() => undefined);
    // Pages are stored in batches while the crawl goes on; progress is reported as each batch is stored.
    const known = await repo.knownUrls(ragId);
    const writer = createPageWriter({
      write: (pages) => repo.replacePages(owner, ragId, pages, deps.clock(), sourceId, known),
      onWritten: async (pages) => {
        trained += pages.length;
        deps.changes.publish(ragId);
        await progress.onPage?.(trained, pages[pages.length - 1]!.url);
      },
    });
    const summary = await deps.crawl(
      {
        urls: input.urls,
        maxPages: input.max_crawl_pages,
        maxDepth: input.max_crawl_depth,
        crawlerType: input.crawler_type,
        dynamicWaitSecs: input.dynamic_content_wait_secs,
      },
      {
        signal: progress.signal,
        onError: (e) => {
          deps.logger.info('page not trained', { rag_id: ragId, url: e.url, reason: e.reason });
          progress.onError?.(e);
        },
        onPage: async (page) => {
          const result = await trainPage(ragId, page, {
            chunkSize: input.chunk_size,
            chunkOverlap: input.chunk_overlap,
            extractor: models.extractor,
            embed: models.embed,
          });
          await writer.write(result);
        },
      },
    );
    await writer.close();
    if (models.stats.fallbacks > 0 || models.embeddingFailures > 0) {
      deps.logger.warn('training used the local fallback for some chunks', {
        rag_id: ragId,
        llm_chunks: models.stats.llm,
        extraction_fallbacks: models.stats.fallbacks,
        embedding_failures: models.embeddingFailures,
      });
    }
    // A snapshot of the index as trained, so that a new replica loads it rather than what led to it.
    if (trained > 0) void persistIndex(ragId);
    return { pages_trained: trained, errors: summary.errors, aborted: summary.aborted };
  };
}

/** Knowledge graphs per RAG configuration: training from websites, reading, retrieval. Owner checked by the rag service. */
export function createGraphService(deps: GraphServiceDeps) {
  const { repo } = deps;
  const configs = createReadCache<RagConfig>({
    ttlMs: RAG_CONFIG_TTL_MS,
    max: 10_000,
    bus: deps.changes,
    name: 'rag-config',
  });
  const searchConfigOf = async (owner: Owner, ragId: string): Promise<RagConfig> =>
    (await configs.get(ragId, `${owner.org_id}\u0000${owner.user_id}`, () => deps.rag.configOf(owner, ragId)))!;
  const persistIndex = (ragId: string) =>
    deps.indexes
      .persist(ragId)
      .catch((err: unknown) =>
        deps.logger.warn('index snapshot not written', { rag_id: ragId, err: (err as Error).message }),
      );
  const changed = (ragId: string) => {
    deps.changes.publish(ragId);
    void persistIndex(ragId);
  };

  return {
    train: createTrain(deps, persistIndex),
    /** Checks the owner's RAG configuration (NotFoundError otherwise); the async path calls it before queueing. */
    async checkOwner(owner: Owner, ragId: string): Promise<void> {
      await deps.rag.configOf(owner, ragId);
    },
    /** Removes the pages that only these knowledge-base documents reached (their chunks, entities, relations). */
    async deleteSources(owner: Owner, ragId: string, sourceIds: string[]): Promise<{ deleted: number }> {
      await deps.rag.configOf(owner, ragId);
      const deleted = await repo.deleteSources(ragId, sourceIds);
      if (deleted > 0) changed(ragId);
      return { deleted };
    },
    /** Removes the whole graph of a configuration. */
    async reset(owner: Owner, ragId: string): Promise<{ deleted: number }> {
      await deps.rag.configOf(owner, ragId);
      const deleted = await configs.changed(ragId, repo.dropGraph(ragId));
      changed(ragId);
      return { deleted };
    },
    /** The graph: the `limit` heaviest entities, the pages that mention them, their relations and mentions. */
    async graph(owner: Owner, ragId: string, limit: number): Promise<Graph> {
      await deps.rag.configOf(owner, ragId);
      const facts = await repo.facts(ragId);
      const pages = await repo.pages(ragId, limit);
      return graphOf(ragId, facts, pages, limit);
    },
    /**
     * The `topK` chunks that best match `query` (BM25; blended with the cosine similarity of embeddings when the
     * graph has vectors and the configuration's embedding credential embeds the query), with their pages and their
     * relevance (0–1), and the facts those chunks state.
     */
    async retrieve(owner: Owner, ragId: string, query: string, topK: number): Promise<Retrieval> {
      const config = await searchConfigOf(owner, ragId);
      let embedded = false;
      const ranked = await deps.indexes.rank(ragId, query, topK, async () => {
        const v = await deps.models.embedQuery(owner, config, query);
        embedded = v !== null;
        return v;
      });
      // The hits' texts and the facts their chunks state, read together (one small read per hit).
      const hitFacts = await repo.factsOfHits(ragId, ranked);
      return retrievalOf(ragId, query, ranked, hitFacts, embedded);
    },
  };
}

export type GraphService = ReturnType<typeof createGraphService>;
