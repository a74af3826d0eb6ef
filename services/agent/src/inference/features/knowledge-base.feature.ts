import { ServiceUnavailableError, ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

import type { InferenceContext, Owner } from '../inference.types';
import type { FeatureHandler } from './feature.types';

/** Where the rag service answers retrievals and how this service authenticates to it. */
export interface KnowledgeTarget {
  baseUrl: string;
  /** The internal on-behalf-of secret the rag service shares; null: the feature cannot run (503). */
  secret: string | null;
  timeoutMs?: number;
}

/** What the rag service's `GET /v3/rag/{id}/retrieve/` answers. */
export interface Knowledge {
  results: { text: string; url: string; title: string; score: number }[];
  facts: { source: string; relation: string; target: string; urls: string[] }[];
}

/** Chunks sent when the KNOWLEDGE_BASE feature names no `top_k`. */
export const DEFAULT_TOP_K = 5;
const MAX_TOP_K = 20;
const MAX_QUERY_CHARS = 2000;

const isKnowledge = (v: unknown): v is Knowledge => {
  const o = v as Partial<Knowledge> | null;
  return !!o && Array.isArray(o.results) && Array.isArray(o.facts);
};

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
  return {
    async retrieve(owner: Owner, ragId: string, query: string, topK: number): Promise<Knowledge> {
      if (!target?.secret) {
        logger.error('knowledge base unavailable: RAG_URL or INTERNAL_SERVICE_SECRET is not set');
        throw new ServiceUnavailableError();
      }
      const qs = new URLSearchParams({ query: query.slice(0, MAX_QUERY_CHARS), top_k: String(topK) });
      const res = await outbound
        .request({
          url: `${target.baseUrl.replace(/\/+$/, '')}/v3/rag/${encodeURIComponent(ragId)}/retrieve/?${qs.toString()}`,
          headers: {
            'x-internal-secret': target.secret,
            'x-on-behalf-of-user': owner.user_id,
            'x-on-behalf-of-org': owner.org_id,
          },
          timeoutMs: target.timeoutMs ?? 10_000,
          maxResponseBytes: 4 * 1024 * 1024,
          maxRedirects: 0,
        })
        .catch((err: unknown) => {
          logger.warn('rag service unreachable for the knowledge base', { message: (err as Error).message });
          throw new ServiceUnavailableError(err);
        });
      if (res.status === 200 && isKnowledge(res.data)) return res.data;
      if (res.status === 404) {
        throw ValidationError.field(
          ['body', 'agent_id'],
          `RAG configuration ${ragId} of the agent's KNOWLEDGE_BASE feature not found`,
          'rag_not_found',
        );
      }
      logger.warn('rag service answered a retrieval unexpectedly', { status: res.status });
      throw new ServiceUnavailableError();
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
