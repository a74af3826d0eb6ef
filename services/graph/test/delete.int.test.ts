import request from 'supertest';

import { startGraphStack, type GraphStack } from './helpers';
import { startTestSite, type TestSite } from './site';

// The rag service's knowledge base deletes what a website training put in the graph: the pages a deleted document
// reached (unless another document reached them too), or the whole graph on a reset.
let s: TestSite;
let g: GraphStack;

beforeAll(async () => {
  s = await startTestSite({ hugeBytes: 1024 });
  g = await startGraphStack({ allowHosts: `127.0.0.1:${s.site.port}` });
});
afterAll(async () => {
  await g.close();
  await s.close();
});

const DOC_A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const DOC_B = 'bbbbbbbbbbbbbbbbbbbbbbbb';

const train = (ragId: string, url: string, sourceId: string, pages = 1) =>
  request(g.app)
    .post(`/v4/knowledge_graph/website/?rag_id=${ragId}&source_id=${sourceId}`)
    .set('x-api-key', g.alice)
    .send({ urls: [url], max_crawl_pages: pages, max_crawl_depth: 1 });
const pageUrls = async (ragId: string): Promise<string[]> => {
  const res = await request(g.app)
    .get(`/v4/knowledge_graph/graph/?rag_id=${ragId}&limit=1000`)
    .set('x-api-key', g.alice);
  expect(res.status).toBe(200);
  return (res.body.nodes as { label: string; url?: string }[])
    .filter((n) => n.label === 'Page')
    .map((n) => new URL(n.url!).pathname)
    .sort();
};
const retrieved = async (ragId: string, query: string): Promise<string[]> => {
  const res = await request(g.app)
    .get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=${encodeURIComponent(query)}&top_k=50`)
    .set('x-api-key', g.alice);
  expect(res.status).toBe(200);
  return [...new Set((res.body.results as { url: string }[]).map((r) => new URL(r.url).pathname))].sort();
};
const deletePages = (ragId: string, body: unknown, key = g.alice) =>
  request(g.app)
    .delete(`/v4/knowledge_graph/pages/?rag_id=${ragId}`)
    .set('x-api-key', key)
    .send(body as object);

it('deleting a document removes the pages only it reached, with their chunks; a page another document reached stays', async () => {
  const ragId = await g.createRag(g.alice);
  // Document A crawls / and the pages one link away; document B trains /about alone (which A reached too).
  expect((await train(ragId, `${s.site.url}/`, DOC_A, 3)).status).toBe(200);
  expect((await train(ragId, `${s.site.url}/about`, DOC_B)).status).toBe(200);
  const before = await pageUrls(ragId);
  expect(before).toContain('/about');
  expect(before.length).toBeGreaterThanOrEqual(2);

  const res = await deletePages(ragId, { source_ids: [DOC_A] });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ deleted: before.length - 1 });
  expect(await pageUrls(ragId)).toEqual(['/about']);
  // Retrieval sees the change at once (the graph's head moved): only /about's chunks are left.
  expect(await retrieved(ragId, 'about company team products')).toEqual(['/about']);

  // The last document that reached /about goes: the graph is empty.
  expect((await deletePages(ragId, { source_ids: [DOC_B] })).body).toEqual({ deleted: 1 });
  expect(await pageUrls(ragId)).toEqual([]);
  expect(await retrieved(ragId, 'about company team products')).toEqual([]);
});

it('reset removes the whole graph; both deletes check the owner and the body', async () => {
  const ragId = await g.createRag(g.alice);
  expect((await train(ragId, `${s.site.url}/`, DOC_A, 2)).status).toBe(200);
  const pages = (await pageUrls(ragId)).length;
  expect(pages).toBeGreaterThan(0);

  const foreign = await request(g.app).delete(`/v4/knowledge_graph/graph/?rag_id=${ragId}`).set('x-api-key', g.bob);
  expect(foreign.status).toBe(404);
  expect((await deletePages(ragId, { source_ids: [DOC_A] }, g.bob)).status).toBe(404);
  expect((await pageUrls(ragId)).length).toBe(pages);

  for (const bad of [{}, { source_ids: [] }, { source_ids: ['not-an-id'] }, { source_ids: Array(1001).fill(DOC_A) }])
    expect((await deletePages(ragId, bad)).status).toBe(422);

  const reset = await request(g.app).delete(`/v4/knowledge_graph/graph/?rag_id=${ragId}`).set('x-api-key', g.alice);
  expect({ status: reset.status, body: reset.body }).toEqual({ status: 200, body: { deleted: pages } });
  expect(await pageUrls(ragId)).toEqual([]);
  // Deleting what is already gone removes nothing and is not an error.
  expect((await deletePages(ragId, { source_ids: [DOC_A] })).body).toEqual({ deleted: 0 });
});
