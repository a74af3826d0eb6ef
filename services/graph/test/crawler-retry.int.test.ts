import { createOutboundClient } from '@platform/outbound';
import { startLocalServer, type LocalServer } from '@platform/testing';

import { createCrawler } from '../src/crawl/crawler';

// A page whose training fails once (a store hiccup) is retried by the crawler and still counts within
// max_crawl_pages: the failed attempt gives its place back.
let site: LocalServer;
beforeAll(async () => {
  site = await startLocalServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<html><head><title>${req.url}</title></head><body><main><p>Page ${req.url} text.</p></main></body></html>`);
  });
});
afterAll(() => site.close());

it('trains every start page when the first training of one throws', async () => {
  const outbound = createOutboundClient({ allowHosts: `127.0.0.1:${site.port}` });
  const crawl = createCrawler({
    outbound,
    limits: {
      pageMaxBytes: 64 * 1024,
      pageTimeoutMs: 5_000,
      concurrency: 3,
      chromiumPath: '/usr/bin/chromium',
      userAgent: 'graph-test',
    },
    browser: () => {
      throw new Error('no browser in this test');
    },
  });
  const urls = ['/a', '/b', '/c'].map((p) => `${site.url}${p}`);
  const trained: string[] = [];
  let failed = false;
  try {
    const summary = await crawl(
      { urls, maxPages: 3, maxDepth: 0, crawlerType: 'cheerio', dynamicWaitSecs: 0 },
      {
        onPage: async (page) => {
          if (page.url.endsWith('/b') && !failed) {
            failed = true;
            throw new Error('database unreachable for a moment');
          }
          trained.push(page.url);
          return Promise.resolve();
        },
      },
    );
    expect(failed).toBe(true);
    expect(trained.sort()).toEqual(urls);
    expect(summary.pagesCrawled).toBe(3);
  } finally {
    outbound.close();
  }
});
