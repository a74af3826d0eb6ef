/** The rag app with configurations of its owner and a real agent service (on a local port) owning a credential. */
import request from 'supertest';
import { listen, type RunningServer } from '@platform/http';
import { ragBody, startRagApp } from '../../services/rag/test/helpers';
import type { Operation } from './openapi-operations';
import { OTHER, OWNER, errorLogReader, openapiOf, poolFor, times, type Pools, type Target } from './target-kit';

/** The rag app on its own database; credential checks go to the real agent app started beside it. */
export async function startRagTarget(): Promise<Target> {
  const t = await startRagApp();
  let server: RunningServer | undefined;
  try {
    const key = await t.dbs.mintKey(OWNER);
    const otherKey = await t.dbs.mintKey(OTHER);
    const credentialId = await t.credential(await t.agent.dbs.mintKey(OWNER));
    let n = 0;
    const config = async () => {
      const res = await request(t.app).post('/v3/rag/').set('x-api-key', key).send(ragBody({ collection_name: `fuzz_${n++}`, llm_credential_id: credentialId }));
      if (res.status !== 200) throw new Error(`rag fixture answered ${res.status}: ${res.text}`);
      return res.body.id as string;
    };
    const configs: Pools = { read: await times(1, config), write: await times(2, config), delete: await times(3, config) };
    server = await listen(t.app, 0, undefined, '127.0.0.1');
    const running = server;
    return {
      app: t.app,
      port: server.port,
      doc: await openapiOf(t.app),
      ctx: {
        apiKey: key,
        otherApiKey: otherKey,
        newErrorLogs: errorLogReader(t.lines),
        pathIds: (op: Operation, param: string) => (param === 'config_id' ? poolFor(op, configs) : param === 'user_id' ? [OWNER.user_id, OTHER.user_id] : []),
        known: {
          llm_credential_id: [credentialId, 'lyzr_openai'],
          embedding_credential_id: [credentialId, 'lyzr_openai'],
          vector_db_credential_id: ['lyzr_qdrant', credentialId],
          collection_name: ['fuzz_0', 'fuzz_new', 'another_one'],
          vector_store_provider: ['qdrant', 'weaviate'],
          llm_model: ['gpt-4o-mini'],
          embedding_model: ['text-embedding-3-small'],
        },
      },
      close: async () => {
        await running.close(1_000);
        await t.close();
      },
    };
  } catch (err) {
    await server?.close(0);
    await t.close();
    throw err;
  }
}
