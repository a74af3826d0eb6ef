import request from 'supertest';

import { startGraphStack, type GraphStack } from './helpers';

// A search asks the rag service whether the RAG configuration is the caller's (and which credentials it names). A
// replica keeps that answer per owner for RAG_CONFIG_TTL_MS, so that a search is one hop shorter; another caller is
// always asked for, and a reset of the graph (as when its configuration is deleted) drops it everywhere.
let g: GraphStack;
beforeAll(async () => {
  g = await startGraphStack({ allowHosts: '127.0.0.1:9' });
});
afterAll(async () => {
  await g.close();
});

const search = (key: string, ragId: string) =>
  request(g.app).get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=anything&top_k=3`).set('x-api-key', key);

/** Ownership checks the rag service answered for this configuration so far (its request log). */
const checks = (ragId: string) =>
  g.lines.filter((l) => l.includes('"message":"request"') && new RegExp(`"path":"/v3/rag/${ragId}/?"`).test(l)).length;

it('repeated searches of one owner ask the rag service once; another owner is asked for and refused', async () => {
  const ragId = await g.createRag(g.alice);
  const before = checks(ragId);
  for (let i = 0; i < 3; i++) expect((await search(g.alice, ragId)).status).toBe(200);
  expect(checks(ragId) - before).toBe(1);
  // Bob is not served from Alice's answer: the rag service is asked, and says no.
  expect((await search(g.bob, ragId)).status).toBe(404);
  expect(checks(ragId) - before).toBe(2);
  expect((await search(g.bob, ragId)).status).toBe(404); // a refusal is never kept
  expect(checks(ragId) - before).toBe(3);
});

it('a reset of the graph drops the kept answer: the next search asks again', async () => {
  const ragId = await g.createRag(g.alice);
  expect((await search(g.alice, ragId)).status).toBe(200);
  const before = checks(ragId);
  const reset = await request(g.app).delete(`/v4/knowledge_graph/graph/?rag_id=${ragId}`).set('x-api-key', g.alice);
  expect(reset.status).toBe(200);
  const afterReset = checks(ragId); // the reset checks the owner itself
  expect(afterReset - before).toBe(1);
  expect((await search(g.alice, ragId)).status).toBe(200);
  expect(checks(ragId) - afterReset).toBe(1);
});
