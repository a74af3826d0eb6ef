/**
 * A website training whose start URL the graph service's crawl refuses (outbound rules, robots.txt) or cannot fetch
 * answers the rag caller 422 with the graph service's reason, not a 5xx, and records no document.
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

const METADATA = 'http://169.254.169.254/latest/meta-data/';

const trainWebsite = (ragId: string, body: object) =>
  request(g.ragApp).post(`/v3/train/website/?rag_id=${ragId}`).set('x-api-key', g.alice).send(body);

describe('POST /v3/train/website/ with a start URL that gives no page', () => {
  it.each([
    ['the metadata address', () => METADATA, 'refused by the outbound guard (link-local address)'],
    ['a loopback address not allowed', () => `${s.trap.url}/`, 'refused by the outbound guard (loopback address)'],
    ['a page robots.txt disallows', () => `${s.site.url}/private/secret`, 'disallowed by robots.txt'],
    ['a page answering 500', () => `${s.site.url}/broken`, 'HTTP 500'],
  ])('%s → 422 with the URL and the reason, no document recorded', async (_name, url, reason) => {
    const ragId = await g.createRag(g.alice);
    const res = await trainWebsite(ragId, { urls: [url()] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [{ loc: ['body', 'urls'], msg: `${url()}: ${reason}`, type: 'url_not_crawled' }],
    });
    const listed = await request(g.ragApp).get(`/v3/rag/documents/${ragId}/`).set('x-api-key', g.alice);
    expect(listed.body.total).toBe(0);
  });
});
