/**
 * The built graph service as a process (`node services/graph/dist/main.js`, the README's run command) beside the
 * built rag service: it serves, trains a site asynchronously through its own consumer, and exits by itself on SIGTERM.
 * Needs `pnpm run build` first.
 */
import { resolve } from 'node:path';

import { createApiKeyRepository } from '@platform/auth';
import { connectMongo, type Connection } from '@platform/db';
import { freePort, startServiceProcess, testInfra, uniqueName, type ServiceProcess } from '@platform/testing';

import { ALICE, INTERNAL_SECRET } from './helpers';
import { startTestSite, type TestSite } from './site';

const SERVICES = resolve(__dirname, '../..');
const GRAPH_MAIN = `${SERVICES}/graph/dist/main.js`;
let s: TestSite;
let auth: Connection;
let rag: ServiceProcess;
let graph: ServiceProcess;
let key: string;
let env: Record<string, string>;
const dbs = { graph: uniqueName('graphp'), rag: uniqueName('graphpr'), auth: uniqueName('graphpa') };

beforeAll(async () => {
  s = await startTestSite({ hugeBytes: 1024, slowMs: 150 });
  auth = await connectMongo({ uri: testInfra.mongoUri, dbName: dbs.auth });
  const keys = createApiKeyRepository(auth);
  await keys.init();
  key = (await keys.create(ALICE, 'process')).key;
  const common = {
    MONGODB_URI: testInfra.mongoUri,
    REDIS_URL: testInfra.redisUrl,
    AUTH_DB: dbs.auth,
    LOG_LEVEL: 'warn',
    INTERNAL_SERVICE_SECRET: INTERNAL_SECRET,
  };
  const graphPort = await freePort();
  rag = await startServiceProcess({
    script: `${SERVICES}/rag/dist/main.js`,
    env: { ...common, MONGODB_DB: dbs.rag, GRAPH_URL: `http://127.0.0.1:${graphPort}` },
  });
  // A short job lock, so that a crawl whose process died is taken over quickly by the next process.
  env = {
    ...common,
    MONGODB_DB: dbs.graph,
    RAG_URL: rag.url,
    QUEUE_PREFIX: uniqueName('gp'),
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${s.site.port}`,
    CRAWL_LOCK_MS: '2000',
  };
  graph = await startServiceProcess({ script: GRAPH_MAIN, port: graphPort, env });
}, 60_000);
afterAll(async () => {
  await graph?.stop();
  await rag?.stop();
  await s.close();
  for (const name of Object.values(dbs))
    await auth
      .useDb(name)
      .dropDatabase()
      .catch(() => undefined);
  await auth.close();
});

const call = async (url: string, init: RequestInit = {}) => {
  const res = await fetch(url, {
    ...init,
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** A RAG configuration of the key's owner, through the real rag process. */
async function ragConfig(name: string): Promise<string> {
  const config = await call(`${rag.url}/v3/rag/`, {
    method: 'POST',
    body: JSON.stringify({
      llm_credential_id: 'x',
      embedding_credential_id: 'x',
      vector_db_credential_id: 'x',
      collection_name: name,
      llm_model: 'm',
      embedding_model: 'e',
      vector_store_provider: 'neo4j',
    }),
  });
  return String(config.body.id);
}

/** Reads the task until `done` holds (or 30 s passed). */
async function taskUntil(
  taskId: string,
  done: (t: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  let task: Record<string, unknown> = {};
  for (let i = 0; i < 600 && !done(task); i++) {
    await new Promise((r) => setTimeout(r, 50));
    task = (await call(`${graph.url}/v4/knowledge_graph/task/${taskId}`)).body;
  }
  return task;
}

const finished = (t: Record<string, unknown>) => t.status === 'completed' || t.status === 'failed';

it('is ready, trains a site through its own queue consumer, and stops cleanly on SIGTERM', async () => {
  expect((await fetch(`${graph.url}/readyz`)).status).toBe(200);
  const ragId = await ragConfig('proc_kg');
  const queued = await call(`${graph.url}/v4/knowledge_graph/neo4j/website/?rag_id=${ragId}&async=true`, {
    method: 'POST',
    body: JSON.stringify({ urls: [`${s.site.url}/`], max_crawl_pages: 3, max_crawl_depth: 1 }),
  });
  expect(queued.status).toBe(202);
  expect(await taskUntil(String(queued.body.task_id), finished)).toEqual(
    expect.objectContaining({ status: 'completed', pages_trained: 3 }),
  );
  const found = await call(`${rag.url}/v3/rag/${ragId}/retrieve/?query=Lovelace`);
  expect(found.body.results).toEqual([expect.objectContaining({ url: `${s.site.url}/` })]);

  await graph.stop(10_000);
  expect(graph.child.exitCode).toBe(0);
}, 60_000);

it('resumes a crawl whose process was killed: the next process takes the job over once its lock expired', async () => {
  graph = await startServiceProcess({ script: GRAPH_MAIN, env });
  // Pages 0–3 of the tree answer; the rest wait until the process is killed, however fast this machine trains.
  s.holdSlow(4);
  const queued = await call(
    `${graph.url}/v4/knowledge_graph/website/?rag_id=${await ragConfig('proc_kill')}&async=true`,
    {
      method: 'POST',
      body: JSON.stringify({ urls: [`${s.site.url}/slow/0`], max_crawl_pages: 12, max_crawl_depth: 10 }),
    },
  );
  expect(queued.status).toBe(202);
  const taskId = String(queued.body.task_id);
  const started = await taskUntil(taskId, (t) => Number(t.pages_trained ?? 0) >= 2);
  const exited = new Promise((r) => graph.child.once('exit', r));
  graph.child.kill('SIGKILL');
  await exited;
  s.releaseSlow();
  expect(started).toEqual(expect.objectContaining({ status: 'running', attempts: 1 }));

  graph = await startServiceProcess({ script: GRAPH_MAIN, env });
  expect(await taskUntil(taskId, finished)).toEqual(
    expect.objectContaining({ status: 'completed', pages_trained: 12, attempts: 2 }),
  );
}, 90_000);
