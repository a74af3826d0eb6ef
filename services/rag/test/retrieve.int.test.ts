import request from 'supertest';

import { startGraphStack, type GraphStack } from '../../graph/test/helpers';
import { startTestSite, type TestSite } from '../../graph/test/site';

let s: TestSite;
let g: GraphStack;
let ragId: string;

beforeAll(async () => {
  s = await startTestSite({ hugeBytes: 1024 });
  // The real rag app, asking the real graph service (both on loopback ports) on behalf of the caller.
  g = await startGraphStack({ allowHosts: `127.0.0.1:${s.site.port}` });
  ragId = await g.createRag(g.alice);
  const trained = await request(g.app)
    .post(`/v4/knowledge_graph/website/?rag_id=${ragId}`)
    .set('x-api-key', g.alice)
    .send({ urls: [`${s.site.url}/`], max_crawl_pages: 20, max_crawl_depth: 2 });
  if (trained.body.pages_trained !== 6) throw new Error(`site not trained: ${trained.text}`);
});
afterAll(async () => {
  await g.close();
  await s.close();
});

const retrieve = (key: string, id: string, query: string, extra = '') =>
  request(g.ragApp)
    .get(`/v3/rag/${id}/retrieve/?query=${encodeURIComponent(query)}${extra}`)
    .set('x-api-key', key);

describe('GET /v3/rag/{id}/retrieve/', () => {
  it.each([
    ['Who founded Zylotech?', '/'],
    ['Qorvian Institute Lisbon', '/about'],
    ['Grace Hopper engineering team', '/team'],
    ['Glowmaster lantern ninety days', '/products'],
    ['Enormous filler', '/huge'],
  ])('ranks the page that answers "%s" first (%s)', async (query, path) => {
    const res = await retrieve(g.alice, ragId, query);
    expect(res.status).toBe(200);
    expect(res.body.results[0].url).toBe(`${s.site.url}${path}`);
    const scores = res.body.results.map((r: { score: number }) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('returns at most top_k chunks (default 5) with their text, page URL and score, and the facts they state', async () => {
    const res = await retrieve(g.alice, ragId, 'lantern Zylotech', '&top_k=2');
    expect(res.body.results).toHaveLength(2);
    expect(res.body.results[0]).toEqual({
      chunk_id: expect.any(String),
      text: expect.any(String),
      url: expect.stringContaining(s.site.url),
      title: expect.any(String),
      score: expect.any(Number),
    });
    expect((await retrieve(g.alice, ragId, 'lantern')).body.results.length).toBeLessThanOrEqual(5);
    const founded = await retrieve(g.alice, ragId, 'Ada Lovelace');
    expect(founded.body.facts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          source: 'Ada Lovelace',
          relation: 'FOUNDED',
          target: 'Zylotech',
          urls: [`${s.site.url}/`],
        }),
      ]),
    );
  });

  it("carries the caller's request id into the graph service's log lines", async () => {
    const res = await retrieve(g.alice, ragId, 'Zylotech').set('x-request-id', 'trace-rag-graph-1');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('trace-rag-graph-1');
    // The graph service's own request line (the test logger holds both apps' lines): its path is the graph's.
    const graphLines = g.lines
      .map((l) => JSON.parse(l) as { path?: string; requestId?: string })
      .filter((l) => l.path?.startsWith('/v4/knowledge_graph/retrieve'));
    expect(graphLines.map((l) => l.requestId)).toContain('trace-rag-graph-1');
  });

  it('finds nothing for words no page holds', async () => {
    const res = await retrieve(g.alice, ragId, 'xylophone quasar');
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
  });

  it("answers 404 for another owner's configuration, an unknown one and a malformed id", async () => {
    for (const id of [ragId, '0123456789abcdef01234567', 'nope']) {
      const res = await retrieve(g.bob, id, 'Zylotech');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'RAG configuration not found' });
    }
  });

  it('answers 422 for a missing or too long query and a bad top_k, 403 without a key', async () => {
    expect((await request(g.ragApp).get(`/v3/rag/${ragId}/retrieve/`).set('x-api-key', g.alice)).status).toBe(422);
    expect((await retrieve(g.alice, ragId, 'x'.repeat(2001))).status).toBe(422);
    const bad = await retrieve(g.alice, ragId, 'Zylotech', '&top_k=51');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'top_k']);
    expect((await request(g.ragApp).get(`/v3/rag/${ragId}/retrieve/?query=x`)).status).toBe(403);
  });
});
