import type { Owner } from '@platform/db';
import type { Logger } from '@platform/logger';
import { createReadCache, type ChangeBus } from '@platform/queue';
import { lexicalRelevance, type LiveIndexes } from '@platform/retrieval';

import type { Crawl } from '../crawl/crawler';
import type { Models } from '../providers/models';
import type { RagClient, RagConfig } from '../rag/rag.client';
import type { GraphRepository } from './graph.repository';
import type { Graph, GraphEdge, GraphNode, Retrieval, RetrievedFact } from './graph.schemas.types';
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

const MAX_FACTS = 10;
/**
 * How long a replica serves retrievals of a RAG configuration without asking the rag service again whether it is the
 * caller's (and which credentials it names): a search is then one hop shorter. Per owner, so no other caller is ever
 * answered from it; dropped on every replica when the graph is reset (as when its configuration is deleted).
 */
export const RAG_CONFIG_TTL_MS = 5_000;
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const entityId = (key: string) => `entity:${key}`;
const pageId = (url: string) => `page:${url}`;

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

  /** Crawls and trains; every page is stored as soon as it is read, so a stopped run keeps what it did. */
  async function train(
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
  }

  return {
    train,
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
      const { entities, relations } = await repo.facts(ragId);
      const top = entities.sort((a, b) => b.weight - a.weight || cmp(a.key, b.key)).slice(0, limit);
      const keys = new Set(top.map((e) => e.key));
      const nodes: GraphNode[] = top.map((e) => ({
        id: entityId(e.key),
        label: 'Entity',
        name: e.name,
        type: e.type,
        weight: e.weight,
      }));
      const edges: GraphEdge[] = relations
        .filter((r) => keys.has(r.source) && keys.has(r.target))
        .map((r) => ({ source: entityId(r.source), target: entityId(r.target), type: r.type, weight: r.weight }));
      const pages = await repo.pages(ragId, limit);
      const shown = new Set(pages.map((p) => p.url));
      for (const p of pages)
        nodes.push({ id: pageId(p.url), label: 'Page', name: p.title || p.url, type: 'PAGE', url: p.url });
      for (const e of top) {
        for (const url of e.urls)
          if (shown.has(url)) edges.push({ source: pageId(url), target: entityId(e.key), type: 'MENTIONS', weight: 1 });
      }
      edges.sort(
        (x, y) => y.weight - x.weight || cmp(x.source, y.source) || cmp(x.target, y.target) || cmp(x.type, y.type),
      );
      return { rag_id: ragId, nodes, edges };
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
      const { texts, relations, names } = await repo.factsOfHits(ragId, ranked);
      const hits = ranked.map((h) => ({ ...h, text: texts.get(h.id) ?? '' }));
      const chosen = relations
        .sort(
          (a, b) => Number(a.type === 'MENTIONED_WITH') - Number(b.type === 'MENTIONED_WITH') || b.weight - a.weight,
        )
        .slice(0, MAX_FACTS);
      const facts: RetrievedFact[] = chosen.map((r) => ({
        source: names.get(r.source) ?? r.source,
        relation: r.type,
        target: names.get(r.target) ?? r.target,
        weight: r.weight,
        urls: r.urls,
      }));
      return {
        rag_id: ragId,
        query,
        results: hits.map((h) => ({
          chunk_id: h.id,
          text: h.text,
          url: h.url,
          title: h.title,
          // Relevance 0–1: the blend is one already; BM25 alone is mapped (see lexicalRelevance).
          score: Number((embedded ? h.score : lexicalRelevance(h.score)).toFixed(6)),
        })),
        facts,
      };
    },
  };
}

export type GraphService = ReturnType<typeof createGraphService>;
