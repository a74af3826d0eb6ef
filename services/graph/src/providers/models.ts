import type { Owner } from '@platform/db';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createEmbeddings, openProviderCall, type CredentialClient, type Embedder } from '@platform/retrieval';

import type { EntityExtractor } from '../pipeline/entities';
import type { RagConfig } from '../rag/rag.client';
import { createLlmExtractor, type ExtractionStats } from './llm-entities';

/** Turns chunk embeddings on when the RAG configuration has an embedding credential. */
export type { Embedder };

/** What one training uses: the extractor (LLM or local), the embedder (or none) and the extraction counts. */
export interface TrainingModels {
  extractor: EntityExtractor;
  embed: Embedder | null;
  stats: ExtractionStats;
  /** Chunks whose embedding failed (stored without a vector, found by BM25 only). */
  embeddingFailures: number;
}

export interface ModelDeps {
  credentials: CredentialClient;
  /** The client for provider calls: the address guard with the operator's allow-list. */
  outbound: OutboundClient;
  local: EntityExtractor;
  /** Time limit of one provider call (chat completion or embeddings batch). */
  timeoutMs: number;
  logger: Logger;
}

/**
 * Chooses, per RAG configuration, what the pipeline uses: its LLM credential (OpenAI protocol) for entities and its
 * embedding credential for chunk vectors, each only when the configuration names one and it opens; otherwise the
 * local NLP library and BM25 only.
 */
export function createModels(deps: ModelDeps) {
  const embeddings = createEmbeddings(deps);
  return {
    async forTraining(owner: Owner, config: RagConfig): Promise<TrainingModels> {
      const [llm, embed] = await Promise.all([
        openProviderCall(deps, owner, config.llm_credential_id, config.llm_model),
        embeddings.embedder(owner, config.embedding_credential_id, config.embedding_model),
      ]);
      const stats: ExtractionStats = { llm: 0, fallbacks: 0 };
      const models: TrainingModels = { extractor: deps.local, embed: null, stats, embeddingFailures: 0 };
      let reported = false;
      if (llm) {
        models.extractor = createLlmExtractor({
          call: llm,
          fallback: deps.local,
          stats,
          onFallback: (reason) => {
            if (reported) return; // the first reason of a training is logged; the count is logged at its end
            reported = true;
            deps.logger.warn('LLM extraction failed for a chunk; the local library is used for it', {
              rag_id: config.id,
              reason,
            });
          },
        });
      }
      if (embed) {
        models.embed = async (texts) => {
          try {
            return await embed(texts);
          } catch (err) {
            models.embeddingFailures += texts.length;
            deps.logger.warn('chunk embeddings failed; the chunks are kept for BM25 only', {
              rag_id: config.id,
              reason: (err as Error).message,
            });
            return [];
          }
        };
      }
      return models;
    },
    /** The query's vector by the configuration's embedding credential; null when it has none, it does not open, or it fails. */
    embedQuery(owner: Owner, config: RagConfig, query: string): Promise<number[] | null> {
      return embeddings.embedQuery(owner, config.embedding_credential_id, config.embedding_model, query, {
        rag_id: config.id,
      });
    },
  };
}

export type Models = ReturnType<typeof createModels>;
