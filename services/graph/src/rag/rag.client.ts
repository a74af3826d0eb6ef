import { isObjectIdHex, type Owner } from '@platform/db';
import { NotFoundError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, operationCall, siblingOperation, type ServiceTarget } from '@platform/service-client';

import { ragConfig } from './rag.schemas';
import type { RagConfig } from './rag.schemas.types';

/** A RAG configuration of the rag service, read on its owner's behalf. */
export const RAG_CONFIG = siblingOperation({
  service: 'rag',
  method: 'GET',
  path: '/v3/rag/{config_id}/',
  response: ragConfig,
});

/** The rag service, which owns RAG configurations, and how this service reaches it (null secret: 503). */
export type RagServiceTarget = ServiceTarget;

export type { RagConfig };

/**
 * RAG configurations, asked of the rag service on behalf of the caller (data ownership: the graph service never
 * reads the rag service's collections). Another owner's configuration answers 404 there, and so here.
 */
export function createRagClient(deps: { outbound: OutboundClient; target: RagServiceTarget; logger: Logger }) {
  const rag = createServiceClient({ ...deps, name: 'rag service' });
  return {
    /** The owner's configuration; NotFoundError when it is not the owner's or does not exist. */
    async configOf(owner: Owner, ragId: string): Promise<RagConfig> {
      if (!isObjectIdHex(ragId)) throw new NotFoundError('RAG configuration');
      return rag.call({
        what: 'an ownership check',
        ...operationCall(RAG_CONFIG, { config_id: ragId }),
        owner,
        on: {
          404: () => {
            throw new NotFoundError('RAG configuration');
          },
        },
        timeoutMs: deps.target.timeoutMs ?? 5_000,
        maxResponseBytes: 256 * 1024,
      });
    },
  };
}

export type RagClient = ReturnType<typeof createRagClient>;
