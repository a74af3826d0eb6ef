import { newObjectId, type Page } from '@platform/db';
import { ValidationError } from '@platform/errors';
import type { UploadedFile } from '@platform/http';
import type { Logger } from '@platform/logger';
import {
  chunkTextWithOffsets,
  createLiveIndexes,
  fuseRankings,
  lexicalRelevance,
  type VectorStores as AllVectorStores,
  type Embeddings,
} from '@platform/retrieval';

import type { Retrieval } from '../rag/rag.schemas.types';
import type { RagConfig } from '../rag/rag.types';
import type { ChunkRecord, DocumentRecord, DocumentRepository } from './document.repository';
import { extractText } from './extractors';
import type { GraphTrainClient } from './graph-train.client';
import type {
  DocumentList,
  TrainFileForm,
  TrainResult,
  TrainTextBody,
  TrainWebsiteBody,
} from './knowledge.schemas.types';
import type { Chunking, DocumentKind, FileKind, Owner } from './knowledge.types';
import type { OcrClient } from './ocr.client';

/** The vector stores by `vector_store_provider` (the configuration's). */
export type VectorStores = Pick<AllVectorStores, 'forProvider'>;

export interface KnowledgeServiceDeps {
  /** The caller's configuration, or NotFoundError (the rag service's own check). */
  configOf(owner: Owner, ragId: string): Promise<RagConfig>;
  repo: DocumentRepository;
  /** Chunk and query vectors by the configuration's embedding credential; null: lexical (BM25) only. */
  embeddings: Embeddings | null;
  vectors: VectorStores | null;
  ocr: OcrClient;
  graph: GraphTrainClient;
  logger: Logger;
  clock: () => Date;
  /** Rag ids whose BM25 index is kept in memory at once. */
  maxCachedIndexes?: number;
}

/** One item to train: a text and where it came from. */
interface TrainItem {
  text: string;
  source: string;
  metadata: Record<string, unknown>;
}

/** One retrieved chunk as `Retrieval.results` lists it. */
type RetrievedChunk = Retrieval['results'][number];

/** Candidates read per ranking before fusion, as a multiple of top_k. */
const CANDIDATES_PER_RESULT = 4;

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** Parses `extra_info` (a JSON object in a form field); 422 at ["body", "extra_info"] otherwise. */
function metadataOf(extraInfo: string | undefined, parse: (value: unknown) => Record<string, unknown>) {
  if (!extraInfo || extraInfo.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(extraInfo);
  } catch {
    throw ValidationError.field(['body', 'extra_info'], 'extra_info must be a JSON object', 'json_invalid');
  }
  if (value === null) return {};
  return parse(value);
}

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

  /** Vectors of the new chunks in the configuration's store; a failure keeps the chunks for BM25 only. */
  async function embed(owner: Owner, config: RagConfig, chunks: ChunkRecord[]): Promise<void> {
    const store = storeOf(config);
    if (!deps.embeddings || !store || chunks.length === 0) return;
    try {
      const embedder = await deps.embeddings.embedder(owner, config.embedding_credential_id, config.embedding_model);
      if (!embedder) return;
      const vectors = await embedder(chunks.map((c) => c.text));
      await store.upsert(
        config.id,
        chunks.map((c, i) => ({ id: c.id, document_id: c.document_id, vector: vectors[i]! })),
      );
    } catch (err) {
      logger.warn('chunks kept for lexical search only: embedding or vector store failed', {
        rag_id: config.id,
        chunks: chunks.length,
        reason: (err as Error).message,
      });
    }
  }

  async function store(
    owner: Owner,
    config: RagConfig,
    kind: DocumentKind,
    items: TrainItem[],
    chunking: Chunking,
    locOf: (i: number) => (string | number)[],
  ): Promise<TrainResult> {
    const created_at = deps.clock().toISOString();
    const documents: DocumentRecord[] = [];
    const chunks: ChunkRecord[] = [];
    const empty: number[] = [];
    items.forEach((item, i) => {
      const id = newObjectId();
      const pieces = chunkTextWithOffsets(item.text, chunking.chunk_size, chunking.chunk_overlap);
      if (pieces.length === 0) empty.push(i);
      pieces.forEach((p, ordinal) =>
        chunks.push({ id: newObjectId(), rag_id: config.id, document_id: id, ordinal, ...p, source: item.source }),
      );
      documents.push({
        id,
        rag_id: config.id,
        ...owner,
        source: item.source,
        metadata: item.metadata,
        kind,
        chunks: pieces.length,
        chars: item.text.length,
        created_at,
      });
    });
    if (empty.length > 0)
      throw new ValidationError(
        empty.map((i) => ({ loc: locOf(i), msg: `${items[i]!.source} has no text to train`, type: 'text_empty' })),
      );
    await repo.insert(documents, chunks);
    await embed(owner, config, chunks);
    changed(config.id);
    return {
      message: `${documents.length} document(s) trained`,
      rag_id: config.id,
      documents: documents.map((d) => ({ id: d.id, source: d.source })),
      chunks: chunks.length,
    };
  }

  return {
    async trainTexts(owner: Owner, ragId: string, body: TrainTextBody): Promise<TrainResult> {
      const config = await deps.configOf(owner, ragId);
      return store(owner, config, 'text', body.data, body, (i) => ['body', 'data', i, 'text']);
    },

    /** 404 unless the configuration is the caller's: checked before an upload is read. */
    async checkConfig(owner: Owner, ragId: string): Promise<void> {
      await deps.configOf(owner, ragId);
    },

    async trainFile(
      owner: Owner,
      ragId: string,
      kind: FileKind,
      upload: UploadedFile,
      form: TrainFileForm,
      parseMetadata: (value: unknown) => Record<string, unknown>,
    ): Promise<TrainResult> {
      const config = await deps.configOf(owner, ragId);
      const extra = metadataOf(form.extra_info, parseMetadata);
      const { text, name } = await extractText({ ocr: deps.ocr }, owner, kind, upload);
      const metadata = {
        ...extra,
        ...(upload.filename ? { filename: upload.filename } : {}),
        ...(form.data_parser ? { data_parser: form.data_parser } : {}),
      };
      return store(owner, config, kind, [{ text, source: name, metadata }], form, () => ['body', 'file']);
    },

    /** One crawl per start URL through the graph service; each URL recorded as a website document. */
    async trainWebsite(owner: Owner, ragId: string, body: TrainWebsiteBody): Promise<TrainResult> {
      const config = await deps.configOf(owner, ragId);
      const documents: DocumentRecord[] = [];
      for (const url of body.urls) {
        const id = newObjectId();
        const pages = await deps.graph.train(owner, config.id, { ...body, urls: [url] }, id);
        documents.push({
          id,
          rag_id: config.id,
          ...owner,
          source: url,
          metadata: { pages_trained: pages },
          kind: 'website',
          chunks: pages,
          chars: 0,
          created_at: deps.clock().toISOString(),
        });
      }
      await repo.insert(documents, []);
      changed(config.id);
      return {
        message: 'Website trained successfully',
        rag_id: config.id,
        documents: documents.map((d) => ({ id: d.id, source: d.source })),
        chunks: documents.reduce((n, d) => n + d.chunks, 0),
      };
    },

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

    /** The best chunks of the trained documents: BM25 and vector rankings fused. */
    async search(owner: Owner, config: RagConfig, query: string, topK: number): Promise<RetrievedChunk[]> {
      const k = topK * CANDIDATES_PER_RESULT;
      const lexical = await index.rank(config.id, query, k);
      if (lexical.length === 0 && (await index.size(config.id)).chunks === 0) return [];
      const rankings = [lexical.map((h) => ({ id: h.id, score: h.score }))];
      const store = storeOf(config);
      if (deps.embeddings && store) {
        const vector = await deps.embeddings.embedQuery(
          owner,
          config.embedding_credential_id,
          config.embedding_model,
          query,
          { rag_id: config.id },
        );
        if (vector) {
          const hits = await store.search(config.id, vector, k).catch((err: unknown) => {
            logger.warn('vector search failed; lexical only', { rag_id: config.id, reason: (err as Error).message });
            return [];
          });
          rankings.push(hits.map((h) => ({ id: h.id, score: h.score })));
        }
      }
      const fused = fuseRankings(rankings).slice(0, topK);
      const relevance = relevanceOf(rankings);
      // Texts of the answers only; sources of lexical hits are in the index, of vector-only hits in the chunks.
      const texts = await index.texts(
        config.id,
        fused.map((f) => f.id),
      );
      const sources = new Map(lexical.map((h) => [h.id, h.title]));
      const unsourced = fused.filter((f) => !sources.has(f.id)).map((f) => f.id);
      for (const c of await repo.chunksByIds(config.id, unsourced)) sources.set(c.id, c.source);
      return fused.flatMap((f) => {
        const text = texts.get(f.id);
        const source = sources.get(f.id);
        if (text === undefined || source === undefined) return []; // deleted since the index was read
        const score = relevance.get(f.id) ?? 0;
        return [{ chunk_id: f.id, text, url: isUrl(source) ? source : '', title: source, score }];
      });
    },

    /**
     * The trained documents and the knowledge graph searched together, their rankings fused. Either failing leaves
     * the other's answer (logged); both failing, or the graph failing with no document found, → the graph's error.
     */
    async retrieve(
      owner: Owner,
      ragId: string,
      query: string,
      topK: number,
      graph: (config: RagConfig) => Promise<Retrieval>,
    ): Promise<Retrieval> {
      const config = await deps.configOf(owner, ragId);
      const [docs, kg] = await Promise.allSettled([this.search(owner, config, query, topK), graph(config)]);
      if (docs.status === 'rejected') {
        logger.warn('document retrieval failed; knowledge graph only', {
          rag_id: config.id,
          reason: (docs.reason as Error).message,
        });
        if (kg.status === 'rejected') throw kg.reason;
        return kg.value;
      }
      if (kg.status === 'rejected') {
        if (docs.value.length === 0) throw kg.reason;
        logger.warn('knowledge graph retrieval failed; documents only', {
          rag_id: config.id,
          reason: (kg.reason as Error).message,
        });
        return { rag_id: config.id, query, results: docs.value, facts: [] };
      }
      if (docs.value.length === 0) return kg.value;
      if (kg.value.results.length === 0) return { ...kg.value, results: docs.value };
      const all = new Map([...kg.value.results, ...docs.value].map((r) => [r.chunk_id, r]));
      const fused = fuseRankings([
        docs.value.map((r) => ({ id: r.chunk_id, score: r.score })),
        kg.value.results.map((r) => ({ id: r.chunk_id, score: r.score })),
      ]).slice(0, topK);
      // Ranked by the fused ranks; each result keeps its own relevance (0–1) as its score.
      return { ...kg.value, results: fused.map((f) => all.get(f.id)!) };
    },
  };
}

/**
 * The relevance (0–1) of each candidate: its BM25 score as `lexicalRelevance`, or the cosine similarity of its
 * embedding to the question's (negative counted 0), whichever is higher.
 */
function relevanceOf(rankings: { id: string; score: number }[][]): Map<string, number> {
  const [lexical = [], ...vectors] = rankings;
  const out = new Map<string, number>();
  const keep = (id: string, v: number) => out.set(id, Math.max(out.get(id) ?? 0, Math.min(1, Math.max(0, v))));
  for (const h of lexical) keep(h.id, lexicalRelevance(h.score));
  for (const list of vectors) for (const h of list) keep(h.id, h.score);
  for (const [id, v] of out) out.set(id, Number(v.toFixed(6)));
  return out;
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
