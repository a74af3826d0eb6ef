/**
 * A training that trains nothing says why (contract §6): a start URL the outbound guard refuses, that robots.txt
 * forbids or that cannot be fetched answers 422 naming the URL and the reason, and an asynchronous task ends
 * `failed` with the same text; never 200 with `pages_trained: 0`.
 */
import request from 'supertest';

import { freePort } from '@platform/testing';

import { startGraphStack, type GraphStack } from './helpers';
import { startTestSite, type TestSite } from './site';

let s: TestSite;
let g: GraphStack;
/** A loopback port the guard allows but where nothing listens: the connection is refused. */
let closedUrl: string;

beforeAll(async () => {
  s = await startTestSite({ hugeBytes: 1024 * 1024 });
  const closed = await freePort();
  closedUrl = `http://127.0.0.1:${closed}`;
  // The site and the closed port are allowed; the trap (loopback), private and metadata addresses are not.
  g = await startGraphStack({ allowHosts: `127.0.0.1:${s.site.port},127.0.0.1:${closed}`, pageMaxBytes: 64 * 1024 });
});
afterAll(async () => {
  await g.close();
  await s.close();
});

const METADATA = 'http://169.254.169.254/latest/meta-data/';

const train = (ragId: string, body: object, async = false) =>
  request(g.app)
    .post(`/v4/knowledge_graph/neo4j/website/?rag_id=${ragId}${async ? '&async=true' : ''}`)
    .set('x-api-key', g.alice)
    .send(body);

async function finished(taskId: string): Promise<request.Response> {
  for (let i = 0; i < 600; i++) {
    const res = await request(g.app).get(`/v4/knowledge_graph/task/${taskId}`).set('x-api-key', g.alice);
    if (res.body.status === 'completed' || res.body.status === 'failed') return res;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the task did not finish');
}

/** Each start URL that trains nothing, with the reason its 422 (and its failed task) must name. */
const cases: [string, () => string, RegExp][] = [
  ['the metadata address', () => METADATA, /^refused by the outbound guard \(link-local address\)$/],
  ['a loopback address not allowed', () => `${s.trap.url}/`, /^refused by the outbound guard \(loopback address\)$/],
  ['a private address', () => 'http://10.0.0.7/', /^refused by the outbound guard \(private address\)$/],
  ['a page robots.txt disallows', () => `${s.site.url}/private/secret`, /^disallowed by robots\.txt$/],
  ['a page answering 500', () => `${s.site.url}/broken`, /^HTTP 500$/],
  ['a page answering 404', () => `${s.site.url}/no-such-page`, /^HTTP 404$/],
  ['a page that is not HTML', () => `${s.site.url}/data.json`, /^not HTML \(application\/json\)$/],
  ['a page larger than the cap', () => `${s.site.url}/huge`, /^page larger than 65536 bytes$/],
  ['a port that refuses the connection', () => `${closedUrl}/`, /^robots\.txt unreadable \(.*ECONNREFUSED.*\)$/],
];

describe('start URLs that give no page', () => {
  it.each(cases)('%s: sync → 422 naming the URL and the reason', async (_name, url, reason) => {
    const ragId = await g.createRag(g.alice);
    const res = await train(ragId, { urls: [url()] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    const [entry] = res.body.detail as { loc: unknown[]; msg: string; type: string }[];
    expect(entry!.loc).toEqual(['body', 'urls', 0]);
    expect(entry!.type).toBe('url_not_crawled');
    expect(entry!.msg.startsWith(`${url()}: `)).toBe(true);
    expect(entry!.msg.slice(url().length + 2)).toMatch(reason);
    const graph = await request(g.app).get(`/v4/knowledge_graph/graph/?rag_id=${ragId}`).set('x-api-key', g.alice);
    expect(graph.body.nodes).toEqual([]);
  });

  it.each(cases)('%s: async → the task ends failed with the same reason', async (_name, url, reason) => {
    const ragId = await g.createRag(g.alice);
    const consumer = g.startConsumer();
    try {
      const queued = await train(ragId, { urls: [url()] }, true);
      expect(queued.status).toBe(202);
      const done = await finished(queued.body.task_id);
      expect(done.body).toEqual(expect.objectContaining({ status: 'failed', pages_trained: 0 }));
      expect(done.body.error.startsWith(`${url()}: `)).toBe(true);
      expect(done.body.error.slice(url().length + 2)).toMatch(reason);
      expect(done.body.errors).toEqual([{ url: url(), reason: expect.stringMatching(reason) }]);
    } finally {
      await consumer.stop();
    }
  });

  it('refuses without connecting: the trap records no connection', () => {
    expect(s.trap.connections).toBe(0);
  });

  it('names every start URL when none gave a page, each at its place in the request', async () => {
    const ragId = await g.createRag(g.alice);
    const res = await train(ragId, { urls: [METADATA, `${s.site.url}/broken`], max_crawl_pages: 5 });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'urls', 0],
        msg: `${METADATA}: refused by the outbound guard (link-local address)`,
        type: 'url_not_crawled',
      },
      { loc: ['body', 'urls', 1], msg: `${s.site.url}/broken: HTTP 500`, type: 'url_not_crawled' },
    ]);
  });
});

describe('some start URLs trained, others refused', () => {
  it('sync → 200 with the refused URL in errors; async → completed with it in errors', async () => {
    const ragId = await g.createRag(g.alice);
    const body = { urls: [`${s.site.url}/about`, METADATA], max_crawl_pages: 2 };
    const res = await train(ragId, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Website trained successfully',
      rag_id: ragId,
      pages_trained: 1,
      errors: [{ url: METADATA, reason: 'refused by the outbound guard (link-local address)' }],
    });

    const consumer = g.startConsumer();
    try {
      const queued = await train(ragId, body, true);
      const done = await finished(queued.body.task_id);
      expect(done.body).toEqual(expect.objectContaining({ status: 'completed', pages_trained: 1, error: null }));
      expect(done.body.errors).toEqual([
        { url: METADATA, reason: 'refused by the outbound guard (link-local address)' },
      ]);
    } finally {
      await consumer.stop();
    }
  });
});
