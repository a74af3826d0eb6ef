import { internalCallHeaders } from '@platform/auth';
import { BadGatewayError, ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

import type { Owner } from './rag.types';

/** The graph service, which holds the trained knowledge of each RAG configuration, and how rag reaches it. */
export interface GraphServiceTarget {
  baseUrl: string;
  /** The internal on-behalf-of secret the graph service shares; null: retrieval cannot run (503). */
  secret: string | null;
  timeoutMs?: number;
}

/** One retrieved chunk with its page and score; `facts` are relations stated by those chunks. */
export interface Retrieval {
  rag_id: string;
  query: string;
  results: { chunk_id: string; text: string; url: string; title: string; score: number }[];
  facts: { source: string; relation: string; target: string; weight: number; urls: string[] }[];
}

const isRetrieval = (v: unknown): v is Retrieval => {
  const o = v as Partial<Retrieval> | null;
  return !!o && Array.isArray(o.results) && Array.isArray(o.facts);
};

/** Asks the graph service for the best chunks of a configuration, on behalf of its owner. */
export function createRetrieveClient(deps: { outbound: OutboundClient; target: GraphServiceTarget; logger: Logger }) {
  return {
    async retrieve(owner: Owner, ragId: string, query: string, topK: number): Promise<Retrieval> {
      const target = deps.target;
      if (!target.secret) {
        deps.logger.error('retrieval impossible: INTERNAL_SERVICE_SECRET is not set');
        throw new ServiceUnavailableError();
      }
      const qs = new URLSearchParams({ rag_id: ragId, query, top_k: String(topK) });
      const res = await deps.outbound
        .request({
          url: `${target.baseUrl.replace(/\/+$/, '')}/v4/knowledge_graph/retrieve/?${qs.toString()}`,
          headers: internalCallHeaders(target.secret, owner),
          timeoutMs: target.timeoutMs ?? 10_000,
          maxResponseBytes: 4 * 1024 * 1024,
          maxRedirects: 0,
        })
        .catch((err: unknown) => {
          deps.logger.warn('graph service unreachable', { message: (err as Error).message });
          throw new ServiceUnavailableError(err);
        });
      if (res.status === 200 && isRetrieval(res.data)) return res.data;
      deps.logger.warn('graph service answered a retrieval unexpectedly', { status: res.status });
      throw new BadGatewayError('Graph service error');
    },
  };
}

export type RetrieveClient = ReturnType<typeof createRetrieveClient>;
