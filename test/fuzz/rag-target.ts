/** The rag app with configurations of its owner and a real agent service (on a local port) owning a credential. */
import request from 'supertest';

import { ragBody, startRagApp } from '../../services/rag/test/helpers';
import type { Operation } from './openapi-operations';
import { OTHER, OWNER, poolFor, serveTarget, times, type Pools, type Target } from './target-kit';

/** The rag app on its own database; credential checks go to the real agent app started beside it. */
export async function startRagTarget(): Promise<Target> {
  const t = await startRagApp();
  return serveTarget(t, async ({ key }) => {
    const credentialId = await t.credential(await t.agent.dbs.mintKey(OWNER));
    let n = 0;
    const config = async () => {
      const res = await request(t.app)
        .post('/v3/rag/')
        .set('x-api-key', key)
        .send(ragBody({ collection_name: `fuzz_${n++}`, llm_credential_id: credentialId }));
      if (res.status !== 200) throw new Error(`rag fixture answered ${res.status}: ${res.text}`);
      return res.body.id as string;
    };
    const configs: Pools = {
      read: await times(1, config),
      write: await times(2, config),
      delete: await times(3, config),
    };
    return {
      pathIds: (op: Operation, param: string) =>
        param === 'config_id' || param === 'rag_id'
          ? poolFor(op, configs)
          : param === 'user_id'
            ? [OWNER.user_id, OTHER.user_id]
            : [],
      known: {
        llm_credential_id: [credentialId, 'lyzr_openai'],
        embedding_credential_id: [credentialId, 'lyzr_openai'],
        vector_db_credential_id: ['lyzr_qdrant', credentialId],
        collection_name: ['fuzz_0', 'fuzz_new', 'another_one'],
        vector_store_provider: ['qdrant', 'weaviate'],
        llm_model: ['gpt-4o-mini'],
        embedding_model: ['text-embedding-3-small'],
      },
    };
  });
}
