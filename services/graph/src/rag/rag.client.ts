import { internalCallHeaders } from '@platform/auth';
import { isObjectIdHex } from '@platform/db';
import { NotFoundError, ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

import type { Owner } from '../graph/graph.types';

/** The rag service, which owns RAG configurations, and how this service reaches it. */
export interface RagServiceTarget {
  baseUrl: string;
  /** The internal on-behalf-of secret shared with the rag service; null: ownership cannot be checked (503). */
  secret: string | null;
  timeoutMs?: number;
}

/** What the graph service reads of a RAG configuration. */
export interface RagConfig {
  id: string;
  llm_credential_id: string;
  embedding_credential_id: string;
  llm_model: string;
  embedding_model: string;
  meta_data: Record<string, unknown>;
}

const isConfig = (v: unknown): v is RagConfig => {
  const o = v as Partial<RagConfig> | null;
  return !!o && typeof o.id === 'string';
};

/**
 * RAG configurations, asked of the rag service on behalf of the caller (data ownership: the graph service never
 * reads the rag service's collections). Another owner's configuration answers 404 there, and so here.
 */
export function createRagClient(deps: { outbound: OutboundClient; target: RagServiceTarget; logger: Logger }) {
  const base = deps.target.baseUrl.replace(/\/+$/, '');
  return {
    /** The owner's configuration; NotFoundError when it is not the owner's or does not exist. */
    async configOf(owner: Owner, ragId: string): Promise<RagConfig> {
      if (!isObjectIdHex(ragId)) throw new NotFoundError('RAG configuration');
      if (!deps.target.secret) {
        deps.logger.error('RAG ownership cannot be checked: INTERNAL_SERVICE_SECRET is not set');
        throw new ServiceUnavailableError();
      }
      const res = await deps.outbound
        .request({
          url: `${base}/v3/rag/${ragId}`,
          headers: internalCallHeaders(deps.target.secret, owner),
          timeoutMs: deps.target.timeoutMs ?? 5_000,
          maxResponseBytes: 256 * 1024,
          maxRedirects: 0,
        })
        .catch((err: unknown) => {
          deps.logger.warn('rag service unreachable', { message: (err as Error).message });
          throw new ServiceUnavailableError(err);
        });
      if (res.status === 200 && isConfig(res.data)) return res.data;
      if (res.status === 404) throw new NotFoundError('RAG configuration');
      deps.logger.warn('rag service answered an ownership check unexpectedly', { status: res.status });
      throw new ServiceUnavailableError();
    },
  };
}

export type RagClient = ReturnType<typeof createRagClient>;
