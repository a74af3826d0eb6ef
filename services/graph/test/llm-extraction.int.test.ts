import type { ServerResponse } from 'node:http';
import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';
import {
  completion,
  startFakeEmbeddings,
  startFakeLlm,
  startLocalServer,
  type FakeEmbeddings,
  type FakeLlm,
  type LocalServer,
} from '@platform/testing';

import { startAgentApp, type AgentTestApp } from '../../agent/test/helpers';
import { ALICE, INTERNAL_SECRET, startGraphStack, type GraphStack } from './helpers';

// The RAG configuration's credentials, opened through the real agent service: entities by its LLM (OpenAI protocol,
// JSON validated, local fallback per chunk) and chunk vectors by its embedding credential (blended with BM25).
const LLM_KEY = 'sk-graph-llm-5e1f0a9c3b7d';
const EMBEDDING_KEY = 'sk-graph-embed-8a2c4e6f1d3b';
const PAGES: Record<string, [string, string]> = {
  '/ada': ['Ada', 'Ada Lovelace worked with Charles Babbage in London on the Analytical Engine.'],
  '/bakery': ['Bakery', 'Our bakery bakes bread, pastry and croissant every morning.'],
  '/garage': ['Garage', 'The garage repairs every automobile and sedan brought in.'],
  '/harbour': ['Harbour', 'Sailing lessons on a yacht leave the harbour daily.'],
};
const CONCEPTS = {
  vehicle: ['automobile', 'car', 'sedan', 'vehicle'],
  food: ['bread', 'bakery', 'pastry', 'croissant'],
  sea: ['sailing', 'yacht', 'harbour', 'boat'],
};

let agent: AgentTestApp;
let agentServer: RunningServer;
let llm: FakeLlm;
let embeddings: FakeEmbeddings;
let site: LocalServer;
let g: GraphStack;
let agentKey: string;
let llmCredential: string;
let embeddingCredential: string;

function page(res: ServerResponse, path: string): void {
  const found = PAGES[path];
  if (!found) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    `<!doctype html><html><head><title>${found[0]}</title></head><body><main><p>${found[1]}</p></main></body></html>`,
  );
}

const credential = async (apiKey: string, baseUrl: string) => {
  const res = await request(agent.app)
    .post('/v3/providers/credentials')
    .set('x-api-key', agentKey)
    .send({ name: 'provider', provider_id: 'openai', credentials: { api_key: apiKey, base_url: baseUrl } });
  expect(res.status).toBe(201);
  return res.body.credential_id as string;
};

beforeAll(async () => {
  agent = await startAgentApp({ internalSecret: INTERNAL_SECRET });
  agentServer = await listen(agent.app, 0, undefined, '127.0.0.1');
  llm = await startFakeLlm('openai');
  embeddings = await startFakeEmbeddings(CONCEPTS);
  site = await startLocalServer((req, res) => page(res, new URL(req.url, 'http://x').pathname));
  g = await startGraphStack({
    allowHosts: [site, llm, embeddings].map((s) => `127.0.0.1:${s.port}`).join(','),
    agentUrl: `http://127.0.0.1:${agentServer.port}`,
  });
  agentKey = await agent.dbs.mintKey(ALICE);
  llmCredential = await credential(LLM_KEY, llm.baseUrl);
  embeddingCredential = await credential(EMBEDDING_KEY, embeddings.baseUrl);
});
afterAll(async () => {
  await g.close();
  await site.close();
  await embeddings.close();
  await llm.close();
  await agentServer.close(0);
  await agent.close();
});

const train = (ragId: string, paths: string[]) =>
  request(g.app)
    .post(`/v4/knowledge_graph/neo4j/website/?rag_id=${ragId}`)
    .set('x-api-key', g.alice)
    .send({ urls: paths.map((p) => `${site.url}${p}`), max_crawl_pages: paths.length });
const entityNames = async (ragId: string) => {
  const res = await request(g.app).get(`/v4/knowledge_graph/graph/?rag_id=${ragId}`).set('x-api-key', g.alice);
  expect(res.status).toBe(200);
  return (res.body.nodes as { label: string; name: string }[])
    .filter((n) => n.label === 'Entity')
    .map((n) => n.name)
    .sort();
};
const retrieve = (ragId: string, query: string) =>
  request(g.app)
    .get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=${encodeURIComponent(query)}&top_k=3`)
    .set('x-api-key', g.alice);
const storedChunks = (ragId: string) => g.dbs.conn.collection('graph_chunks').find({ rag_id: ragId }).toArray();
const ANSWER = {
  entities: [
    { name: 'Ada Lovelace', type: 'person' },
    { name: 'Analytical Engine', type: 'THING' },
  ],
  relations: [{ source: 'Ada Lovelace', target: 'Analytical Engine', type: 'designed programs for' }],
};

describe('with an LLM credential', () => {
  it('the entities and relations are the model’s JSON answer, asked with the original key as Bearer', async () => {
    const ragId = await g.createRag(g.alice, { llm_credential_id: llmCredential, embedding_credential_id: 'ext_none' });
    const before = llm.requests.length;
    llm.script(completion(JSON.stringify(ANSWER)));
    const res = await train(ragId, ['/ada']);
    expect(res.status).toBe(200);
    expect(res.body.pages_trained).toBe(1);
    expect(llm.requests.length).toBe(before + 1);
    const sent = llm.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${LLM_KEY}`);
    expect(sent.json).toMatchObject({ model: 'gpt-4o-mini', response_format: { type: 'json_object' } });
    expect(JSON.stringify(sent.json)).toContain('Charles Babbage');
    // Only what the model named: compromise would also have found Charles Babbage and London.
    expect(await entityNames(ragId)).toEqual(['Ada Lovelace', 'Analytical Engine']);
    const graph = await request(g.app).get(`/v4/knowledge_graph/graph/?rag_id=${ragId}`).set('x-api-key', g.alice);
    expect(graph.body.edges).toContainEqual({
      source: 'entity:ada lovelace',
      target: 'entity:analytical engine',
      type: 'DESIGNED_PROGRAMS_FOR',
      weight: 1,
    });
    expect(graph.body.nodes).toContainEqual(expect.objectContaining({ name: 'Ada Lovelace', type: 'PERSON' }));
    expect(g.lines.join('\n')).not.toContain(LLM_KEY);
  });

  it.each([
    ['text that is not JSON', completion('Sure! Here are the entities: Ada Lovelace.')],
    ['JSON of another shape', completion(JSON.stringify({ entities: 'Ada Lovelace', relations: [] }))],
    ['an HTTP error', { status: 500, body: { error: { message: 'overloaded' } } }],
  ])('%s → the chunk falls back to compromise, counted, and the training succeeds', async (_n, reply) => {
    const ragId = await g.createRag(g.alice, { llm_credential_id: llmCredential, embedding_credential_id: 'ext_none' });
    llm.script(reply);
    const res = await train(ragId, ['/ada']);
    expect(res.status).toBe(200);
    expect(res.body.pages_trained).toBe(1);
    expect(await entityNames(ragId)).toEqual(expect.arrayContaining(['Ada Lovelace', 'Charles Babbage', 'London']));
    const summary = g.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.rag_id === ragId && l.message === 'training used the local fallback for some chunks');
    expect(summary).toEqual([expect.objectContaining({ llm_chunks: 0, extraction_fallbacks: 1 })]);
  });

  it('a credential the agent service no longer has → compromise, logged once however many trainings', async () => {
    const gone = await credential('sk-deleted-key-000', llm.baseUrl);
    const ragId = await g.createRag(g.alice, { llm_credential_id: gone, embedding_credential_id: 'ext_none' });
    expect(
      (await request(agent.app).delete(`/v3/providers/credentials/${gone}`).set('x-api-key', agentKey)).status,
    ).toBe(204);
    const before = llm.requests.length;
    for (let i = 0; i < 2; i++) expect((await train(ragId, ['/ada'])).status).toBe(200);
    expect(llm.requests.length).toBe(before);
    expect(await entityNames(ragId)).toEqual(expect.arrayContaining(['Charles Babbage', 'London']));
    expect(
      g.lines.filter((l) => l.includes('credential not found at the agent service') && l.includes(gone)),
    ).toHaveLength(1);
  });
});

describe('with an embedding credential', () => {
  it('chunks get vectors, and a query that shares no word but the meaning finds the right chunk first', async () => {
    const ragId = await g.createRag(g.alice, {
      llm_credential_id: 'ext_none',
      embedding_credential_id: embeddingCredential,
    });
    const res = await train(ragId, ['/bakery', '/garage', '/harbour']);
    expect(res.status).toBe(200);
    expect(res.body.pages_trained).toBe(3);
    const chunks = await storedChunks(ragId);
    expect(chunks).toHaveLength(3);
    for (const c of chunks) expect(c.embedding).toEqual(embeddings.vectorOf(c.text as string));
    const embedCall = embeddings.requests.find((r) => JSON.stringify(r.json).includes('automobile'))!;
    expect(embedCall.headers.authorization).toBe(`Bearer ${EMBEDDING_KEY}`);
    expect(embedCall.json).toMatchObject({ model: 'text-embedding-3-small' });

    // "car" and "vehicle" are in no chunk: BM25 alone finds nothing; the embedding names the garage.
    const found = await retrieve(ragId, 'car vehicle');
    expect(found.status).toBe(200);
    expect(found.body.results[0].url).toBe(`${site.url}/garage`);
    expect(found.body.results[0].score).toBeGreaterThan(found.body.results[1]?.score ?? 0);
    // Words and meaning agree: BM25 and cosine both point at the bakery.
    expect((await retrieve(ragId, 'croissant')).body.results[0].url).toBe(`${site.url}/bakery`);
  });

  it('embeddings failing at training → chunks kept without vectors, retrieval by BM25 only', async () => {
    const ragId = await g.createRag(g.alice, {
      llm_credential_id: 'ext_none',
      embedding_credential_id: embeddingCredential,
    });
    embeddings.fail(1);
    const res = await train(ragId, ['/garage']);
    expect(res.status).toBe(200);
    expect((await storedChunks(ragId)).map((c) => c.embedding ?? null)).toEqual([null]);
    expect((await retrieve(ragId, 'car vehicle')).body.results).toEqual([]);
    expect((await retrieve(ragId, 'automobile')).body.results[0].url).toBe(`${site.url}/garage`);
  });
});

it('without credentials of the agent service, the local library and BM25 only, as before', async () => {
  const ragId = await g.createRag(g.alice, {
    llm_credential_id: 'ext_plain_llm',
    embedding_credential_id: 'ext_plain_embed',
  });
  const [chats, embeds] = [llm.requests.length, embeddings.requests.length];
  for (let i = 0; i < 2; i++) expect((await train(ragId, ['/ada', '/garage'])).status).toBe(200);
  expect(await entityNames(ragId)).toEqual(expect.arrayContaining(['Ada Lovelace', 'Charles Babbage', 'London']));
  expect((await storedChunks(ragId)).map((c) => c.embedding ?? null)).toEqual([null, null]);
  expect((await retrieve(ragId, 'car vehicle')).body.results).toEqual([]);
  expect((await retrieve(ragId, 'automobile')).body.results[0].url).toBe(`${site.url}/garage`);
  expect([llm.requests.length, embeddings.requests.length]).toEqual([chats, embeds]);
  expect(g.lines.filter((l) => l.includes('ext_plain_llm'))).toHaveLength(1);
});
