import request from 'supertest';

import { expireNow } from '@platform/db';

import { trainBody } from '../src/graph/graph.schemas';
import { TASK_KEEP_MS, taskModel } from '../src/tasks/task.model';
import { createTaskRepository } from '../src/tasks/task.repository';
import { ALICE, startGraphStack, type GraphStack } from './helpers';
import { startTestSite, type TestSite } from './site';

let s: TestSite;
let g: GraphStack;

beforeAll(async () => {
  // Pages under /slow/ answer after a pause, so that a consumer can be stopped in the middle of a crawl.
  s = await startTestSite({ hugeBytes: 1024 * 1024, slowMs: 150 });
  g = await startGraphStack({ allowHosts: `127.0.0.1:${s.site.port}` });
});
afterAll(async () => {
  await g.close();
  await s.close();
});

const startAsync = (key: string, ragId: string, body: object) =>
  request(g.app).post(`/v4/knowledge_graph/neo4j/website/?rag_id=${ragId}&async=true`).set('x-api-key', key).send(body);
const task = (key: string, id: string) => request(g.app).get(`/v4/knowledge_graph/task/${id}`).set('x-api-key', key);

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await read())}`);
}

describe('?async=true', () => {
  it('answers 202 with a task id; the consumer trains it and the task shows state, pages and errors', async () => {
    const ragId = await g.createRag(g.alice);
    const consumer = g.startConsumer();
    const res = await startAsync(g.alice, ragId, { urls: [`${s.site.url}/`], max_crawl_pages: 50, max_crawl_depth: 2 });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ task_id: expect.stringMatching(/^[0-9a-f]{24}$/), rag_id: ragId, status: 'queued' });
    const done = await until(
      () => task(g.alice, res.body.task_id),
      (r) => r.body.status === 'completed',
      'the task',
    );
    await consumer.stop();
    expect(done.body).toEqual(
      expect.objectContaining({
        task_id: res.body.task_id,
        rag_id: ragId,
        status: 'completed',
        pages_crawled: 5,
        pages_trained: 5,
        error: null,
        attempts: 1,
      }),
    );
    expect(done.body.errors).toEqual(
      expect.arrayContaining([
        { url: `${s.site.url}/private/secret`, reason: 'disallowed by robots.txt' },
        expect.objectContaining({ url: `${s.site.url}/huge` }),
        expect.objectContaining({
          url: `${s.site.url}/go-private`,
          reason: expect.stringContaining('refused by the outbound guard (loopback address)'),
        }),
      ]),
    );
    expect((await task(g.bob, res.body.task_id)).status).toBe(404);
    expect((await task(g.alice, '0123456789abcdef01234567')).body).toEqual({ detail: 'Task not found' });
    // The path some public clients call reads the same task, with the same owner rules.
    const status = (key: string, id: string) =>
      request(g.app).get(`/v4/knowledge_graph/task/status/${id}`).set('x-api-key', key);
    expect((await status(g.alice, res.body.task_id)).body).toEqual(done.body);
    expect((await status(g.bob, res.body.task_id)).body).toEqual({ detail: 'Task not found' });
    expect((await status(g.alice, 'not-a-task')).status).toBe(404);
    expect((await request(g.app).get(`/v4/knowledge_graph/task/status/${res.body.task_id}`)).status).toBe(403);
  });

  it('resumes a crawl across a restart of the consumer, with the same graph as one uninterrupted run', async () => {
    const ragId = await g.createRag(g.alice);
    const first = g.startConsumer();
    // Pages 0–3 of the tree answer; the rest wait until the consumer is stopping, however fast this machine trains.
    s.holdSlow(4);
    const res = await startAsync(g.alice, ragId, {
      urls: [`${s.site.url}/slow/0`],
      max_crawl_pages: 12,
      max_crawl_depth: 10,
    });
    await until(
      () => task(g.alice, res.body.task_id),
      (r) => r.body.pages_trained >= 2,
      'the first pages',
    );
    const stopping = first.stop();
    s.releaseSlow();
    await stopping;
    const stopped = await task(g.alice, res.body.task_id);
    expect(stopped.body.status).toBe('queued');
    expect(stopped.body.pages_trained).toBeLessThan(12);

    const second = g.startConsumer();
    const done = await until(
      () => task(g.alice, res.body.task_id),
      (r) => r.body.status === 'completed',
      'the resumed task',
    );
    await second.stop();
    expect(done.body).toEqual(expect.objectContaining({ status: 'completed', pages_trained: 12, attempts: 2 }));
    const graph = await request(g.app)
      .get(`/v4/knowledge_graph/graph/?rag_id=${ragId}&limit=1000`)
      .set('x-api-key', g.alice);
    const pages = graph.body.nodes.filter((n: { label: string }) => n.label === 'Page');
    expect(pages).toHaveLength(12);
  });

  it("answers 404 for another owner's rag_id without queueing anything", async () => {
    const ragId = await g.createRag(g.alice);
    const before = await g.queue.count();
    const res = await startAsync(g.bob, ragId, { urls: [`${s.site.url}/`] });
    expect(res.status).toBe(404);
    expect(await g.queue.count()).toBe(before);
  });
});

describe('expiry', () => {
  it('reads a task for 7 days; then it answers 404 and its TTL index removes it', async () => {
    const ragId = await g.createRag(g.alice);
    const repo = createTaskRepository(g.dbs.conn);
    const input = trainBody.validate({ urls: [`${s.site.url}/`] }).value;
    const now = Date.now();
    const old = await repo.create(ALICE, ragId, input, new Date(now - TASK_KEEP_MS - 1000));
    const recent = await repo.create(ALICE, ragId, input, new Date(now - TASK_KEEP_MS + 60_000));
    expect((await task(g.alice, old.id)).status).toBe(404);
    expect((await task(g.alice, recent.id)).status).toBe(200);
    await expireNow(g.dbs.conn);
    const Task = taskModel(g.dbs.conn);
    expect(await Task.findById(old.id).lean()).toBeNull();
    expect(await Task.findById(recent.id).lean()).not.toBeNull();
  });
});
