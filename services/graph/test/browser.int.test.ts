import request from 'supertest';

import { startLocalServer, type LocalServer } from '@platform/testing';

import { startGraphStack, type GraphStack } from './helpers';
import { startTestSite, type TestSite } from './site';

let s: TestSite;
let g: GraphStack;
let assets: LocalServer;

beforeAll(async () => {
  s = await startTestSite({ hugeBytes: 1024 });
  // A page whose script loads a sub-resource from a private address the guard does not allow.
  assets = await startLocalServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/javascript' });
    res.end('document.body.insertAdjacentHTML("beforeend", "<p>Stolen internal text</p>");');
  });
  g = await startGraphStack({ allowHosts: `127.0.0.1:${s.site.port}` });
});
afterAll(async () => {
  await g.close();
  await s.close();
  await assets.close();
});

const train = (ragId: string, body: object) =>
  request(g.app).post(`/v4/knowledge_graph/neo4j/website/?rag_id=${ragId}`).set('x-api-key', g.alice).send(body);
const retrieve = (ragId: string, q: string) =>
  request(g.app)
    .get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=${encodeURIComponent(q)}`)
    .set('x-api-key', g.alice);

describe('crawler_type playwright:chromium', () => {
  it('trains the text a page writes with JavaScript, which the HTML crawler cannot see', async () => {
    const html = await g.createRag(g.alice);
    expect((await train(html, { urls: [`${s.site.url}/js`] })).body.pages_trained).toBe(1);
    expect((await retrieve(html, 'Moonlight lantern violet')).body.results).toEqual([]);

    const browser = await g.createRag(g.alice);
    const res = await train(browser, {
      urls: [`${s.site.url}/js`],
      crawler_type: 'playwright:chromium',
      dynamic_content_wait_secs: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body.pages_trained).toBe(1);
    const found = await retrieve(browser, 'Moonlight lantern violet');
    expect(found.body.results[0]).toEqual(
      expect.objectContaining({
        url: `${s.site.url}/js`,
        text: expect.stringContaining('The Moonlight lantern glows violet over Reykjavik'),
      }),
    );
  });

  it('routes every browser request through the guard: a script on a private address is never fetched', async () => {
    const ragId = await g.createRag(g.alice);
    const page = `${s.site.url}/external-script?src=${encodeURIComponent(`${assets.url}/inject.js`)}`;
    const res = await train(ragId, { urls: [page], crawler_type: 'playwright:chromium', dynamic_content_wait_secs: 1 });
    expect(res.body.pages_trained).toBe(1);
    expect(assets.connections).toBe(0);
    expect((await retrieve(ragId, 'Harbor lantern Oslo')).body.results).toHaveLength(1);
    expect((await retrieve(ragId, 'Stolen internal')).body.results).toEqual([]);
  });

  it('follows links from the rendered page on the same site, redirects to private addresses refused', async () => {
    const ragId = await g.createRag(g.alice);
    const res = await train(ragId, {
      urls: [`${s.site.url}/products`],
      max_crawl_pages: 10,
      max_crawl_depth: 1,
      crawler_type: 'playwright:chromium',
      dynamic_content_wait_secs: 1,
    });
    expect(res.status).toBe(200);
    // /products, / (its navigation link), /huge (under this test's cap) and /js; not the two redirects to private addresses.
    expect(res.body.pages_trained).toBe(4);
    expect(s.trap.connections).toBe(0);
  });
});
