/**
 * Website training through the real graph service (its crawl of a local test site), answered like training and
 * recorded as documents; retrieval then searches trained texts and the knowledge graph together.
 */
import request from 'supertest';

import { startGraphStack, type GraphStack } from '../../graph/test/helpers';
import { startTestSite, type TestSite } from '../../graph/test/site';

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

const trainWebsite = (key: string, ragId: string, body: unknown) =>
  request(g.ragApp)
    .post(`/v3/train/website/?rag_id=${ragId}`)
    .set('x-api-key', key)
    .send(body as object);
const METADATA = 'http://169.254.169.254/latest/meta-data/';

describe('POST /v3/train/website/', () => {
  it('crawls each start URL into the knowledge graph and records it as a document', async () => {
    const ragId = await g.createRag(g.alice);
    const res = await trainWebsite(g.alice, ragId, {
      urls: [`${s.site.url}/`, `${s.site.url}/about`],
      max_crawl_pages: 1,
      max_crawl_depth: 0,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Website trained successfully',
      rag_id: ragId,
      documents: [
        { id: expect.any(String), source: `${s.site.url}/` },
        { id: expect.any(String), source: `${s.site.url}/about` },
      ],
      chunks: 2,
    });
    const listed = await request(g.ragApp).get(`/v3/rag/documents/${ragId}/`).set('x-api-key', g.alice);
    expect(listed.body.total).toBe(2);
    expect(listed.body.documents[0]).toEqual(
      expect.objectContaining({ kind: 'website', chunks: 1, metadata: { pages_trained: 1 } }),
    );

    // A trained text beside the crawled pages: one retrieval searches both.
    await request(g.ragApp)
      .post(`/v3/train/text/?rag_id=${ragId}`)
      .set('x-api-key', g.alice)
      .send({
        data: [{ text: 'The Brindlewood archive keeps the Zylotech founding letters.', source: 'archive-note' }],
      });
    const found = await request(g.ragApp)
      .get(`/v3/rag/${ragId}/retrieve/?query=${encodeURIComponent('Zylotech founding Brindlewood archive')}&top_k=5`)
      .set('x-api-key', g.alice);
    expect(found.status).toBe(200);
    const titles = found.body.results.map((r: { title: string; url: string }) => r.url || r.title);
    expect(titles).toContain('archive-note');
    expect(titles).toContain(`${s.site.url}/`);
  });

  it('deleting a website document removes its pages from the knowledge graph; reset removes the graph', async () => {
    const ragId = await g.createRag(g.alice);
    const trained = await trainWebsite(g.alice, ragId, {
      urls: [`${s.site.url}/`, `${s.site.url}/about`],
      max_crawl_pages: 1,
    });
    expect(trained.status).toBe(200);
    const [home, about] = trained.body.documents as { id: string }[];
    const pagesOf = async () => {
      const res = await request(g.app)
        .get(`/v4/knowledge_graph/graph/?rag_id=${ragId}&limit=100`)
        .set('x-api-key', g.alice);
      return (res.body.nodes as { label: string; url?: string }[])
        .filter((n) => n.label === 'Page')
        .map((n) => new URL(n.url!).pathname)
        .sort();
    };
    const retrievedUrls = async () => {
      const res = await request(g.ragApp)
        .get(`/v3/rag/${ragId}/retrieve/?query=${encodeURIComponent('welcome about company')}&top_k=10`)
        .set('x-api-key', g.alice);
      return [...new Set((res.body.results as { url: string }[]).map((r) => new URL(r.url).pathname))].sort();
    };
    expect(await pagesOf()).toEqual(['/', '/about']);

    const del = await request(g.ragApp).delete(`/v3/rag/${ragId}/docs/`).set('x-api-key', g.alice).send([home!.id]);
    expect({ status: del.status, body: del.body }).toEqual({ status: 200, body: { deleted: 1 } });
    expect(await pagesOf()).toEqual(['/about']);
    expect(await retrievedUrls()).toEqual(['/about']);

    const reset = await request(g.ragApp).delete(`/v3/rag/${ragId}/reset/`).set('x-api-key', g.alice);
    expect({ status: reset.status, body: reset.body }).toEqual({ status: 200, body: { deleted: 1 } });
    expect(await pagesOf()).toEqual([]);
    expect(about).toBeDefined();
  });

  it("passes on the graph service's refusals with their detail, and scopes to the owner", async () => {
    const ragId = await g.createRag(g.alice);
    const tooDeep = await trainWebsite(g.alice, ragId, { urls: [`${s.site.url}/`], max_crawl_depth: 99 });
    expect(tooDeep.status).toBe(422);
    expect(tooDeep.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'max_crawl_depth'] }));
    const badUrl = await trainWebsite(g.alice, ragId, { urls: ['ftp://example.org/'] });
    expect(badUrl.status).toBe(422);
    expect((await trainWebsite(g.bob, ragId, { urls: [`${s.site.url}/`] })).status).toBe(404);
    const listed = await request(g.ragApp).get(`/v3/rag/documents/${ragId}/`).set('x-api-key', g.alice);
    expect(listed.body.total).toBe(0);
  });
});

// A start URL the graph service's crawl refuses (outbound rules, robots.txt) or cannot fetch answers the rag
// caller 422 with the graph service's reason, not a 5xx, and records no document.
describe('POST /v3/train/website/ with a start URL that gives no page', () => {
  it.each([
    ['the metadata address', () => METADATA, 'refused by the outbound guard (link-local address)'],
    ['a loopback address not allowed', () => `${s.trap.url}/`, 'refused by the outbound guard (loopback address)'],
    ['a page robots.txt disallows', () => `${s.site.url}/private/secret`, 'disallowed by robots.txt'],
    ['a page answering 500', () => `${s.site.url}/broken`, 'HTTP 500'],
  ])('%s → 422 with the URL and the reason, no document recorded', async (_name, url, reason) => {
    const ragId = await g.createRag(g.alice);
    const res = await trainWebsite(g.alice, ragId, { urls: [url()] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [{ loc: ['body', 'urls'], msg: `${url()}: ${reason}`, type: 'url_not_crawled' }],
    });
    const listed = await request(g.ragApp).get(`/v3/rag/documents/${ragId}/`).set('x-api-key', g.alice);
    expect(listed.body.total).toBe(0);
  });
});
