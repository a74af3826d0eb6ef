import { ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, operationCall, siblingOperation, type ServiceTarget } from '@platform/service-client';
import { inSpan } from '@platform/tracing';

import type { InferenceContext, Owner } from '../inference.types';
import type { FeatureHandler } from './feature.types';
import { isRagId, KNOWLEDGE_BASE, MAX_RAG_IDS, ragIdsOf, scoreThresholdOf, topKOf } from './knowledge-base.config';
import { knowledge, ragSeen } from './knowledge-base.schemas';
import type { Knowledge } from './knowledge-base.schemas.types';

/** The rag service's retrieval over one of its configurations. */
const RAG_RETRIEVE = siblingOperation({
  service: 'rag',
  method: 'GET',
  path: '/v3/rag/{config_id}/retrieve/',
  response: knowledge,
});
/** One of the rag service's configurations (only whether the owner has it is read). */
const RAG_CONFIG = siblingOperation({ service: 'rag', method: 'GET', path: '/v3/rag/{config_id}/', response: ragSeen });

/** Where the rag service answers retrievals and how this service authenticates to it (null secret: 503). */
export type KnowledgeTarget = ServiceTarget;

export type { Knowledge };

const MAX_QUERY_CHARS = 2000;

function ragIdsFor(config: Record<string, unknown>): string[] {
  const ids = ragIdsOf(config);
  if (ids.length === 0) {
    throw ValidationError.field(
      ['body', 'agent_id'],
      "The agent's KNOWLEDGE_BASE feature names no rag_id",
      'rag_missing',
    );
  }
  return ids.slice(0, MAX_RAG_IDS);
}

const ragNotFound = (ragId: string) =>
  ValidationError.field(
    ['body', 'agent_id'],
    `RAG configuration ${ragId} of the agent's KNOWLEDGE_BASE feature not found`,
    'rag_not_found',
  );

/** Asks the rag service, on behalf of the agent's owner, for knowledge and about RAG configurations. */
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
    /** The knowledge of one configuration that matches a message; not the owner's → 422 `rag_not_found`. */
    retrieve(owner: Owner, ragId: string, query: string, topK: number): Promise<Knowledge> {
      if (!isRagId(ragId)) return Promise.reject(ragNotFound(ragId));
      const attributes = { 'rag.config_id': ragId, 'rag.top_k': topK };
      return inSpan('retrieval', { attributes }, () =>
        rag.call({
          what: 'a knowledge base retrieval',
          ...operationCall(RAG_RETRIEVE, { config_id: ragId }),
          query: { query: query.slice(0, MAX_QUERY_CHARS), top_k: String(topK) },
          owner,
          maxResponseBytes: 4 * 1024 * 1024,
          on: {
            404: () => {
              throw ragNotFound(ragId);
            },
          },
        }),
      );
    },

    /** Whether the owner has that RAG configuration; the rag service unreachable → 503. */
    async owns(owner: Owner, ragId: string): Promise<boolean> {
      if (!isRagId(ragId)) return false;
      const seen = await rag.call<{ id: string } | null>({
        what: 'a RAG configuration check',
        ...operationCall(RAG_CONFIG, { config_id: ragId }),
        owner,
        on: { 404: () => null },
      });
      return seen !== null;
    },
  };
}

export type KnowledgeClient = ReturnType<typeof createKnowledgeClient>;

/** The knowledge as a section of the system prompt: numbered sources with their URLs, then facts. */
export function knowledgeSection(k: Knowledge): string {
  const lines = [
    'Knowledge base (retrieved for this message). Use it to answer, and cite a source as [n] with its URL:',
  ];
  k.results.forEach((r, i) =>
    lines.push(`[${i + 1}] ${r.text.replace(/\s+/g, ' ').trim()} (source: ${r.url || r.title})`),
  );
  if (k.facts.length > 0) {
    lines.push('Facts:');
    for (const f of k.facts)
      lines.push(
        `- ${f.source} ${f.relation.toLowerCase().replace(/_/g, ' ')} ${f.target} (source: ${f.urls.join(', ')})`,
      );
  }
  return lines.join('\n');
}

/** Items in order, the first of each key only. */
function firstOfEach<T>(items: T[], keyOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = keyOf(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The knowledge of several retrievals as one: results best score first (the same text of the same page once), those
 * scoring below `threshold` dropped, cut to `topK`; facts of every retrieval, each once, but for those stated only by
 * pages whose chunks were all dropped.
 */
export function mergeKnowledge(parts: Knowledge[], topK: number, threshold?: number): Knowledge {
  const all = parts.flatMap((k) => k.results);
  const ranked = all.filter((r) => threshold === undefined || r.score >= threshold).sort((a, b) => b.score - a.score);
  const results = firstOfEach(ranked, (r) => JSON.stringify([r.url, r.text])).slice(0, topK);
  const kept = new Set(results.map((r) => r.url));
  const dropped = new Set(all.map((r) => r.url).filter((url) => !kept.has(url)));
  const facts = parts
    .flatMap((k) => k.facts)
    .filter((f) => f.urls.length === 0 || !f.urls.every((url) => dropped.has(url)));
  return { results, facts: firstOfEach(facts, (f) => JSON.stringify([f.source, f.relation, f.target])) };
}

/**
 * KNOWLEDGE_BASE, in either config shape (`knowledge-base.config.ts`): the chunks of each named RAG configuration
 * that best match the user message (merged by score, `top_k` in all, default 5; `score_threshold` drops weaker ones),
 * and the facts they state, go into the system prompt with their source URLs. Agents are checked when saved; one
 * stored before that check with no rag id or another owner's → 422 here; a rag service that cannot answer → 503.
 */
export function knowledgeBaseFeature(client: KnowledgeClient): FeatureHandler {
  return {
    type: KNOWLEDGE_BASE,
    async beforeModel(ctx: InferenceContext, config) {
      const topK = topKOf(config);
      const parts = await Promise.all(ragIdsFor(config).map((id) => client.retrieve(ctx.owner, id, ctx.message, topK)));
      const knowledge = mergeKnowledge(parts, topK, scoreThresholdOf(config));
      if (knowledge.results.length === 0 && knowledge.facts.length === 0) return;
      const section = knowledgeSection(knowledge);
      ctx.system = ctx.system ? `${ctx.system}\n\n${section}` : section;
    },
  };
}
