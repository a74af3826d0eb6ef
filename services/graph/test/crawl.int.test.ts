import request from 'supertest';

import { createApp, createGraphParts } from '../src/app';
import { factsId, graphModels, type PageFactsDoc } from '../src/graph/graph.model';
import { startGraphStack, type GraphStack } from './helpers';
import { startTestSite, type TestSite } from './site';

const PAGE_CAP = 64 * 1024;
let s: TestSite;
let g: GraphStack;

beforeAll(async () => {
  s = await startTestSite({ hugeBytes: PAGE_CAP * 4 });
  // The site and the other site are allowed; the trap (a private address like any other) is not.
  g = await startGraphStack({
    allowHosts: `127.0.0.1:${s.site.port},127.0.0.1:${s.offsite.port}`,
    pageMaxBytes: PAGE_CAP,
  });
});
afterAll(async () => {
  await g.close();
  await s.close();
});

const train = (key: string, ragId: string, body: object, path = '/v4/knowledge_graph/neo4j/website/') =>
  request(g.app).post(`${path}?rag_id=${ragId}`).set('x-api-key', key).send(body);
const graphOf = (key: string, ragId: string, limit = 1000) =>
  request(g.app).get(`/v4/knowledge_graph/graph/?rag_id=${ragId}&limit=${limit}`).set('x-api-key', key);
const paths = () => s.site.requests.map((r) => new URL(r.url, 'http://x').pathname);

describe('POST /v4/knowledge_graph/neo4j/website/ (cheerio)', () => {
  let ragId: string;
  let first: request.Response;

  beforeAll(async () => {
    ragId = await g.createRag(g.alice);
    s.site.requests.length = 0;
    first = await train(g.alice, ragId, { urls: [`${s.site.url}/`], max_crawl_pages: 50, max_crawl_depth: 2 });
  });

  it('answers the spec response and trains the pages within depth on the same site', () => {
    expect(first.status).toBe(200);
    // /, /about, /products (depth 1), /team and /js (depth 2); not /team/deep (depth 3), /private/* (robots.txt),
    // the other site, the huge page (over the cap) or the redirects to private addresses.
    expect(first.body).toEqual({ message: 'Website trained successfully', rag_id: ragId, pages_trained: 5 });
  });

  it('obeys robots.txt, stays on the site, stops at the depth limit and fetches each canonical URL once', () => {
    const seen = paths();
    expect(seen).toContain('/robots.txt');
    expect(seen.filter((p) => p.startsWith('/private/'))).toEqual([]);
    expect(seen).not.toContain('/team/deep');
    expect(s.offsite.connections).toBe(0);
    expect(seen.filter((p) => p === '/about')).toHaveLength(1);
    expect(seen.filter((p) => p === '/')).toHaveLength(1);
  });

  it('never fetches a redirect to a private address: the trap records no connection', () => {
    expect(paths()).toEqual(expect.arrayContaining(['/go-private', '/go-metadata']));
    expect(s.trap.connections).toBe(0);
  });

  it('stores entities and relations with weights, the text of scripts and navigation left out', async () => {
    const res = await graphOf(g.alice, ragId);
    expect(res.status).toBe(200);
    const names = res.body.nodes
      .filter((n: { label: string }) => n.label === 'Entity')
      .map((n: { name: string }) => n.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'Ada Lovelace',
        'Zylotech',
        'Paris',
        'Charles Babbage',
        'Qorvian Institute',
        'Lisbon',
        'Grace Hopper',
      ]),
    );
    const zylotech = res.body.nodes.find((n: { name: string }) => n.name === 'Zylotech');
    // One mention per chunk: the home page, /about, /team and /products.
    expect(zylotech.weight).toBe(4);
    expect(res.body.edges).toEqual(
      expect.arrayContaining([
        { source: 'entity:ada lovelace', target: 'entity:zylotech', type: 'FOUNDED', weight: 1 },
        expect.objectContaining({ source: 'entity:charles babbage', target: 'entity:zylotech', type: 'WORKS' }),
        expect.objectContaining({
          source: `page:${s.site.url}/about`,
          target: 'entity:qorvian institute',
          type: 'MENTIONS',
        }),
      ]),
    );
    const pages = res.body.nodes
      .filter((n: { label: string }) => n.label === 'Page')
      .map((n: { url: string }) => n.url);
    expect(pages).toEqual(expect.arrayContaining([`${s.site.url}/`, `${s.site.url}/about`, `${s.site.url}/products`]));
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/tracking|boilerplate|Offsite|Marblefish|Enormous/);
  });

  it('is idempotent: training the same URLs again leaves the same graph', async () => {
    const before = await graphOf(g.alice, ragId);
    const again = await train(
      g.alice,
      ragId,
      { urls: [`${s.site.url}/`], max_crawl_pages: 50, max_crawl_depth: 2 },
      '/v4/knowledge_graph/website/',
    );
    expect(again.body.pages_trained).toBe(5);
    const after = await graphOf(g.alice, ragId);
    expect(after.body).toEqual(before.body);
  });

  it('retrieves the chunks that answer a query, best first, with their page URLs', async () => {
    const res = await request(g.app)
      .get(
        `/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=${encodeURIComponent('Qorvian Institute Lisbon')}&top_k=3`,
      )
      .set('x-api-key', g.alice);
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toEqual(
      expect.objectContaining({
        url: `${s.site.url}/about`,
        title: 'About Zylotech',
        text: expect.stringContaining('Qorvian Institute is located in Lisbon'),
      }),
    );
    expect(res.body.results.length).toBeLessThanOrEqual(3);
    const scores = res.body.results.map((r: { score: number }) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(res.body.facts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'Qorvian Institute', relation: 'IS_LOCATED', target: 'Lisbon' }),
      ]),
    );
    const glow = await request(g.app)
      .get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=Glowmaster`)
      .set('x-api-key', g.alice);
    expect(glow.body.results[0].url).toBe(`${s.site.url}/products`);
  });
});

describe('facts of a graph trained before page facts documents (one row per entity and relation)', () => {
  it('are read the same by retrieval and the graph, and replaced by a facts document when the page is retrained', async () => {
    const ragId = await g.createRag(g.alice);
    const url = `${s.site.url}/about`;
    expect((await train(g.alice, ragId, { urls: [url] })).body.pages_trained).toBe(1);
    const query = (app = g.app) =>
      request(app)
        .get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=${encodeURIComponent('Qorvian Institute Lisbon')}`)
        .set('x-api-key', g.alice);
    const before = { retrieved: (await query()).body, graph: (await graphOf(g.alice, ragId)).body };
    expect(before.retrieved.facts).toEqual(
      expect.arrayContaining([expect.objectContaining({ source: 'Qorvian Institute', target: 'Lisbon' })]),
    );
    // The page's facts as the earlier layout stored them.
    const m = graphModels(g.deps.db);
    const doc = await m.Facts.findOne({ _id: factsId(ragId, url) }).lean<PageFactsDoc>();
    expect(doc?.relations.length).toBeGreaterThan(0);
    await m.Facts.deleteMany({ rag_id: ragId });
    await m.Entity.insertMany(doc!.entities.map((e) => ({ ...e, rag_id: ragId, url })));
    await m.Relation.insertMany(doc!.relations.map((r) => ({ ...r, rag_id: ragId, url })));
    // Read by a replica that starts now (a process notes once per graph whether it may have legacy rows).
    const replica = createApp(g.deps, createGraphParts(g.deps));
    expect((await query(replica)).body).toEqual(before.retrieved);
    expect((await graphOf(g.alice, ragId)).body).toEqual(before.graph);
    // Retrained: one facts document again, no legacy rows left, the same answers.
    expect((await train(g.alice, ragId, { urls: [url] })).body.pages_trained).toBe(1);
    expect(await m.Entity.countDocuments({ rag_id: ragId })).toBe(0);
    expect(await m.Relation.countDocuments({ rag_id: ragId })).toBe(0);
    expect(await m.Facts.countDocuments({ rag_id: ragId })).toBe(1);
    expect((await query()).body).toEqual(before.retrieved);
    expect((await graphOf(g.alice, ragId)).body).toEqual(before.graph);
  });
});

describe('crawl limits', () => {
  it('trains at most max_crawl_pages pages; depth 0 trains the start page only', async () => {
    const ragId = await g.createRag(g.alice);
    const two = await train(g.alice, ragId, { urls: [`${s.site.url}/`], max_crawl_pages: 2, max_crawl_depth: 3 });
    expect(two.body.pages_trained).toBe(2);
    const one = await train(g.alice, ragId, { urls: [`${s.site.url}/about`] });
    expect(one.body.pages_trained).toBe(1);
  });

  it('fetches at most max_crawl_pages pages although several fetches run at once (robots.txt aside)', async () => {
    // Each page links to ten others and the stack crawls three pages at once: without a cap on fetches, the
    // links found on the first page would all start.
    expect(g.deps.limits.concurrency).toBeGreaterThan(1);
    const ragId = await g.createRag(g.alice);
    s.site.requests.length = 0;
    const res = await train(g.alice, ragId, { urls: [`${s.site.url}/wide/0`], max_crawl_pages: 2, max_crawl_depth: 3 });
    expect(res.status).toBe(200);
    expect(res.body.pages_trained).toBe(2);
    const fetched = paths().filter((p) => p !== '/robots.txt');
    expect(fetched).toHaveLength(2);
    expect(fetched[0]).toBe('/wide/0');
  });

  it('refuses a start URL on a private address the guard does not allow (422), connecting to nothing', async () => {
    const ragId = await g.createRag(g.alice);
    const res = await train(g.alice, ragId, { urls: [`${s.trap.url}/`] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'urls', 0], msg: expect.stringContaining(`${s.trap.url}/: refused`) }),
    ]);
    expect(s.trap.connections).toBe(0);
  });
});

describe('ownership and validation', () => {
  it("answers 404 for another owner's rag_id, an unknown one and a malformed one, before crawling", async () => {
    const ragId = await g.createRag(g.alice);
    s.site.requests.length = 0;
    for (const id of [ragId, '0123456789abcdef01234567', 'nope']) {
      const res = await train(g.bob, id, { urls: [`${s.site.url}/`] });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'RAG configuration not found' });
    }
    expect((await graphOf(g.bob, ragId)).status).toBe(404);
    expect(
      (await request(g.app).get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=x`).set('x-api-key', g.bob))
        .status,
    ).toBe(404);
    expect(s.site.requests).toHaveLength(0);
  });

  it('answers 422 naming each bad field, 403 without a key', async () => {
    const ragId = await g.createRag(g.alice);
    const res = await train(g.alice, ragId, {
      urls: ['ftp://x/'],
      max_crawl_pages: 1001,
      max_crawl_depth: 11,
      crawler_type: 'lynx',
      chunk_size: 1000,
      chunk_overlap: 900,
    });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.urls.0',
        'body.max_crawl_pages',
        'body.max_crawl_depth',
        'body.crawler_type',
        'body.chunk_overlap',
      ]),
    );
    expect((await train(g.alice, ragId, {})).status).toBe(422);
    expect(
      (
        await request(g.app)
          .post(`/v4/knowledge_graph/website/`)
          .set('x-api-key', g.alice)
          .send({ urls: [`${s.site.url}/`] })
      ).status,
    ).toBe(422);
    expect(
      (await request(g.app).get(`/v4/knowledge_graph/graph/?rag_id=${ragId}&limit=0`).set('x-api-key', g.alice)).status,
    ).toBe(422);
    expect(
      (
        await request(g.app)
          .post(`/v4/knowledge_graph/website/?rag_id=${ragId}`)
          .send({ urls: [`${s.site.url}/`] })
      ).status,
    ).toBe(403);
  });
});
