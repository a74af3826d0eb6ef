import { ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, type ServiceTarget } from '@platform/service-client';

import type { InferenceContext, Owner } from '../inference.types';
import type { FeatureHandler } from './feature.types';
import { knowledge } from './knowledge-base.schemas';
import type { Knowledge } from './knowledge-base.schemas.types';

/** Where the rag service answers retrievals and how this service authenticates to it (null secret: 503). */
export type KnowledgeTarget = ServiceTarget;

export type { Knowledge };

/** Chunks sent when the KNOWLEDGE_BASE feature names no `top_k`. */
export const DEFAULT_TOP_K = 5;
const MAX_TOP_K = 20;
const MAX_QUERY_CHARS = 2000;

/** `config.top_k` when it is an integer ≥ 1 (capped at 20), else the default. */
export function topKOf(config: Record<string, unknown>): number {
  const n = config.top_k;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) return DEFAULT_TOP_K;
  return Math.min(n, MAX_TOP_K);
}

function ragIdOf(config: Record<string, unknown>): string {
  const id = config.rag_id;
  if (typeof id !== 'string' || id.trim() === '') {
    throw ValidationError.field(
      ['body', 'agent_id'],
      "The agent's KNOWLEDGE_BASE feature has no config.rag_id",
      'rag_missing',
    );
  }
  return id.trim();
}

/** Asks the rag service for the knowledge that matches a message, on behalf of the agent's owner. */
export function createKnowledgeClient({
  outbound,
  target,
  logger,
}: {
  outbound: OutboundClient;
  target?: KnowledgeTarget;
  logger: Logger;
}) {
  const rag = createServiceClient({ outbound, target: target ?? null, logger, name: 'rag service (knowledge base)' });
  return {
    retrieve(owner: Owner, ragId: string, query: string, topK: number): Promise<Knowledge> {
      return rag.call({
        what: 'a knowledge base retrieval',
        path: `/v3/rag/${encodeURIComponent(ragId)}/retrieve/`,
        query: { query: query.slice(0, MAX_QUERY_CHARS), top_k: String(topK) },
        owner,
        response: knowledge,
        maxResponseBytes: 4 * 1024 * 1024,
        on: {
          404: () => {
            throw ValidationError.field(
              ['body', 'agent_id'],
              `RAG configuration ${ragId} of the agent's KNOWLEDGE_BASE feature not found`,
              'rag_not_found',
            );
          },
        },
      });
    },
  };
}

export type KnowledgeClient = ReturnType<typeof createKnowledgeClient>;

/** The knowledge as a section of the system prompt: numbered sources with their URLs, then facts. */
export function knowledgeSection(k: Knowledge): string {
  const lines = [
    'Knowledge base (retrieved for this message). Use it to answer, and cite a source as [n] with its URL:',
  ];
  k.results.forEach((r, i) => lines.push(`[${i + 1}] ${r.text.replace(/\s+/g, ' ').trim()} (source: ${r.url})`));
  if (k.facts.length > 0) {
    lines.push('Facts:');
    for (const f of k.facts)
      lines.push(
        `- ${f.source} ${f.relation.toLowerCase().replace(/_/g, ' ')} ${f.target} (source: ${f.urls.join(', ')})`,
      );
  }
  return lines.join('\n');
}

/**
 * KNOWLEDGE_BASE (`config.rag_id`, `config.top_k`, default 5): the chunks of the RAG configuration's knowledge graph
 * that best match the user message, and the facts they state, go into the system prompt with their source URLs.
 * A configuration that is not the owner's → 422; a rag or graph service that cannot answer → 503.
 */
export function knowledgeBaseFeature(client: KnowledgeClient): FeatureHandler {
  return {
    type: 'KNOWLEDGE_BASE',
    async beforeModel(ctx: InferenceContext, config) {
      const knowledge = await client.retrieve(ctx.owner, ragIdOf(config), ctx.message, topKOf(config));
      if (knowledge.results.length === 0 && knowledge.facts.length === 0) return;
      const section = knowledgeSection(knowledge);
      ctx.system = ctx.system ? `${ctx.system}\n\n${section}` : section;
    },
  };
}
