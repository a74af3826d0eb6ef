import type { Express } from 'express';
import request from 'supertest';

import { connectMongo, syncIndexes, type mongoose } from '@platform/db';
import { disconnectRedis, localChangeBus, openRedisChangeBus, workerConnection, type ChangeBus } from '@platform/queue';
import { indexLogModels, type LiveIndexStats } from '@platform/retrieval';
import { startLocalServer, testInfra, uniqueName, type LocalServer } from '@platform/testing';

import { createApp, createGraphParts } from '../src/app';
import { GRAPH_INDEX_LOG, graphModels } from '../src/graph/graph.model';
import { startGraphStack, type GraphStack } from './helpers';

// Replicas of the graph service share a graph's search index without rebuilding it: training through one reaches
// the others through the change bus (or, a message lost, through the head they read before each search), and a new
// replica loads the newest snapshot and the changes after it.

const newStats = (): LiveIndexStats => ({ builds: 0, snapshotLoads: 0, snapshotWrites: 0, changesApplied: 0 });

/** Pages named by a word each: /w/<word> says "<word>" several times among common words, and names people and places. */
function startWordSite(): Promise<LocalServer> {
  return startLocalServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\n');
    const m = /^\/w\/([a-z]+)$/.exec(path);
    if (!m) return res.writeHead(404).end();
    const w = m[1]!;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Page ${w}</title></head><body><main><p>The ${w} report explains how ${w} ` +
        `works in practice. Engineers study ${w} carefully. Maria Lopez founded Harbor Systems in Lisbon with ` +
        `Ada Byron.</p></main></body></html>`,
    );
  });
}

let site: LocalServer;
let g: GraphStack;
const buses: ChangeBus[] = [];
const producer = workerConnection(testInfra.redisUrl);
const channel = uniqueName('graph-index-changed');
const bus = () => {
  const b = openRedisChangeBus({ url: testInfra.redisUrl, publisher: producer, channel });
  buses.push(b);
  return b;
};
const statsA = newStats();

/** Another replica of the stack's graph service: same database and services, its own memory and bus connection. */
function replica(changes: ChangeBus, stats: LiveIndexStats): Express {
  const deps = { ...g.deps, changes, indexStats: stats };
  return createApp(deps, createGraphParts(deps));
}

beforeAll(async () => {
  site = await startWordSite();
  g = await startGraphStack({ allowHosts: `127.0.0.1:${site.port}`, changes: bus(), indexStats: statsA });
});
afterAll(async () => {
  await g.close();
  await site.close();
  for (const b of buses) await b.close();
  await disconnectRedis(producer);
});

const train = (app: Express, ragId: string, word: string) =>
  request(app)
    .post(`/v4/knowledge_graph/website/?rag_id=${ragId}`)
    .set('x-api-key', g.alice)
    .send({ urls: [`${site.url}/w/${word}`], max_crawl_pages: 1, max_crawl_depth: 0 });
const found = async (app: Express, ragId: string, word: string): Promise<string[]> => {
  const res = await request(app)
    .get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=${word}&top_k=5`)
    .set('x-api-key', g.alice);
  expect(res.status).toBe(200);
  return (res.body.results as { url: string; text: string }[])
    .filter((r) => r.text.includes(word))
    .map((r) => new URL(r.url).pathname);
};
/** Until the graph's newest snapshot covers its last change. */
const snapshotted = (ragId: string) =>
  until(async () => {
    const head = await indexLogModels(g.dbs.conn, GRAPH_INDEX_LOG).Head.findOne({ _id: ragId }).lean();
    return head?.snapshot_seq !== undefined && head.snapshot_seq === (head.seq ?? 0);
  }, 10_000);
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('a page trained through one replica is found by another within a second, applied as a change (no rebuild)', async () => {
  const ragId = await g.createRag(g.alice);
  expect((await train(g.app, ragId, 'zephyrine')).status).toBe(200);
  // The training replica snapshots the index it kept up to date.
  expect(await snapshotted(ragId)).toBe(true);

  const statsB = newStats();
  const b = replica(bus(), statsB);
  expect(await found(b, ragId, 'zephyrine')).toEqual(['/w/zephyrine']);
  expect(statsB).toMatchObject({ builds: 0, snapshotLoads: 1 });

  expect((await train(g.app, ragId, 'quillfeather')).status).toBe(200);
  const t0 = Date.now();
  // Within a second, and without a question asked first: the bus brought the change.
  expect(await until(() => statsB.changesApplied >= 1, 1_000)).toBe(true);
  expect(await found(b, ragId, 'quillfeather')).toEqual(['/w/quillfeather']);
  expect(Date.now() - t0).toBeLessThan(1_000);
  expect(await found(b, ragId, 'zephyrine')).toEqual(['/w/zephyrine']);
  expect(statsB).toMatchObject({ builds: 0, snapshotLoads: 1 });
});

it('a replica that missed the message catches up on its next question from the head it reads first', async () => {
  const ragId = await g.createRag(g.alice);
  expect((await train(g.app, ragId, 'marblewood')).status).toBe(200);
  expect(await snapshotted(ragId)).toBe(true);
  const statsC = newStats();
  const c = replica(localChangeBus(), statsC); // hears nothing from the others
  expect(await found(c, ragId, 'marblewood')).toEqual(['/w/marblewood']);
  expect((await train(g.app, ragId, 'thistledown')).status).toBe(200);
  expect(await found(c, ragId, 'thistledown')).toEqual(['/w/thistledown']);
  expect(statsC.builds).toBe(0);
  expect(statsC.changesApplied).toBe(1);
});

it('a new replica loads the newest snapshot and the changes after it; removals reach every replica', async () => {
  const ragId = await g.createRag(g.alice);
  for (const w of ['amberline', 'birchwick']) expect((await train(g.app, ragId, w)).status).toBe(200);
  expect(await snapshotted(ragId)).toBe(true);
  // Trained after the snapshot: a change the new replica applies after loading it.
  expect((await train(g.app, ragId, 'cobaltine')).status).toBe(200);
  const statsD = newStats();
  const d = replica(bus(), statsD);
  for (const w of ['amberline', 'birchwick', 'cobaltine']) expect(await found(d, ragId, w)).toEqual([`/w/${w}`]);
  expect(statsD.builds).toBe(0);
  expect(statsD.snapshotLoads).toBe(1);

  // A reset through the first replica empties the others' indexes too.
  const reset = await request(g.app).delete(`/v4/knowledge_graph/graph/?rag_id=${ragId}`).set('x-api-key', g.alice);
  expect(reset.status).toBe(200);
  expect(await until(async () => (await found(d, ragId, 'amberline')).length === 0, 2_000)).toBe(true);
  expect(statsD.builds).toBe(0);
});

it('a graph trained before the change log existed is built once from its chunks, then snapshotted', async () => {
  const ragId = await g.createRag(g.alice);
  const m = graphModels(g.dbs.conn);
  await m.Chunk.insertMany([
    {
      _id: uniqueName('c'),
      rag_id: ragId,
      url: `${site.url}/legacy`,
      title: 'Legacy',
      ordinal: 0,
      text: 'An old heliotrope page.',
      embedding: null,
    },
  ]);
  const statsE = newStats();
  const e = replica(bus(), statsE);
  expect(await found(e, ragId, 'heliotrope')).toEqual(['/legacy']);
  expect(statsE.builds).toBe(1);
  expect(await snapshotted(ragId)).toBe(true);
  // The head is moved before the writer's last clean-ups end and it counts the write: wait for the count.
  expect(await until(() => statsE.snapshotWrites === 1, 10_000)).toBe(true);
  const statsF = newStats();
  const f = replica(bus(), statsF);
  expect(await found(f, ragId, 'heliotrope')).toEqual(['/legacy']);
  expect(statsF).toMatchObject({ builds: 0, snapshotLoads: 1 });
});

/** A replica over a connection of its own whose graph commands are recorded (`find graph_page_facts`, ...). */
async function monitoredReplica(): Promise<{ app: Express; commands: string[]; close: () => Promise<void> }> {
  const conn = await connectMongo({ uri: testInfra.mongoUri, dbName: g.dbs.conn.name, monitorCommands: true });
  const commands: string[] = [];
  conn.getClient().on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => {
    const target = e.command[e.commandName] as unknown;
    const line = `${e.commandName} ${typeof target === 'string' ? target : ''}`.trim();
    if (line.includes('graph_')) commands.push(line);
  });
  const deps = { ...g.deps, db: conn, changes: bus(), indexStats: newStats() };
  const app = createApp(deps, createGraphParts(deps));
  await syncIndexes(conn); // as a service does before it serves: no index is still being made when questions come
  return { app, commands, close: () => conn.close() };
}

it("a question to a replica holding the index reads the head and its hits' chunks, nothing else", async () => {
  const ragId = await g.createRag(g.alice);
  expect((await train(g.app, ragId, 'sandpiper')).status).toBe(200);
  const r = await monitoredReplica();
  try {
    expect(await found(r.app, ragId, 'sandpiper')).toEqual(['/w/sandpiper']); // loads the index
    r.commands.length = 0;
    const res = await request(r.app)
      .get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=sandpiper&top_k=5`)
      .set('x-api-key', g.alice);
    expect(res.body.results.map((x: { text: string }) => x.text.includes('sandpiper'))).toContain(true);
    expect(res.body.facts.length).toBeGreaterThan(0);
    expect(r.commands.filter((c) => c.includes('graph_index_'))).toHaveLength(0);
    // The head, then one read per hit of its chunk (its text, the relations it states and their entities' names).
    expect(r.commands.filter((c) => c !== 'find graph_chunks')).toEqual(['find graph_revisions']);
    expect(r.commands.filter((c) => c === 'find graph_chunks')).toHaveLength(res.body.results.length);
  } finally {
    await r.close();
  }
});

it("hits whose chunks predate what chunks state take their facts from their pages' documents", async () => {
  const ragId = await g.createRag(g.alice);
  expect((await train(g.app, ragId, 'kingfisher')).status).toBe(200);
  const ask = (app: Express) =>
    request(app)
      .get(`/v4/knowledge_graph/retrieve/?rag_id=${ragId}&query=kingfisher&top_k=5`)
      .set('x-api-key', g.alice);
  const now = (await ask(g.app)).body;
  await g.dbs.conn.collection('graph_chunks').updateMany({ rag_id: ragId }, { $unset: { stated: '' } });
  const r = await monitoredReplica();
  try {
    // The same answer: texts from the chunks, facts from the page's facts document.
    expect((await ask(r.app)).body).toEqual(now);
    expect(now.facts.length).toBeGreaterThan(0);
    expect(r.commands).toContain('find graph_page_facts');
  } finally {
    await r.close();
  }
});
