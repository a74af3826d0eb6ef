/**
 * Replicas of the rag service share each knowledge base's search index without rebuilding it: a document trained
 * through one is found by another on its next question (it reads the rag id's head and applies what it has not
 * seen), a deleted one is gone from both, and a new replica loads the snapshot instead of reading every chunk.
 */
import request from 'supertest';

import { connectMongo, type mongoose } from '@platform/db';
import { testInfra } from '@platform/testing';

import { startKnowledgeApp, type KnowledgeTestApp } from './knowledge.helpers';

let k: KnowledgeTestApp;
beforeAll(async () => {
  k = await startKnowledgeApp();
}, 60_000);
afterAll(async () => {
  await k?.close();
});

const trainText = (ragId: string, text: string, source: string) =>
  request(k.app)
    .post(`/v3/train/text/?rag_id=${ragId}`)
    .set('x-api-key', k.alice)
    .send({ data: [{ text, source }] });
const sources = async (app: Parameters<typeof request>[0], ragId: string, query: string): Promise<string[]> => {
  const res = await request(app)
    .get(`/v3/rag/${ragId}/retrieve/?query=${encodeURIComponent(query)}&top_k=5`)
    .set('x-api-key', k.alice);
  expect(res.status).toBe(200);
  return (res.body.results as { title: string }[]).map((r) => r.title).filter((t) => t.endsWith('.txt'));
};

it('a document trained or deleted through one replica is seen by another on its next question, nothing rebuilt', async () => {
  const ragId = await k.createRag(k.alice);
  expect((await trainText(ragId, 'The lighthouse keeper logs every passing ship.', 'lighthouse.txt')).status).toBe(200);
  // A replica whose database commands are watched.
  const conn = await connectMongo({ uri: testInfra.mongoUri, dbName: k.dbs.conn.name, monitorCommands: true });
  const scans: string[] = [];
  conn.getClient().on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => {
    const filter = (e.command as { filter?: Record<string, unknown> }).filter ?? {};
    if (e.commandName === 'find' && e.command.find === 'knowledge_chunks' && !('_id' in filter)) scans.push('chunks');
  });
  try {
    const b = k.replica(conn);
    // Its first question: the snapshot the first replica wrote after training, or (not written yet) one build.
    expect(await sources(b, ragId, 'lighthouse keeper')).toEqual(['lighthouse.txt']);
    const firstScans = scans.length;
    expect(firstScans).toBeLessThanOrEqual(1);

    const trained = await trainText(ragId, 'Glacier tours leave the harbour at dawn.', 'glacier.txt');
    expect(trained.status).toBe(200);
    expect(await sources(b, ragId, 'glacier tours')).toEqual(['glacier.txt']);
    const id = (trained.body.documents as { id: string }[])[0]!.id;
    const del = await request(k.app).delete(`/v3/rag/${ragId}/docs/`).set('x-api-key', k.alice).send([id]);
    expect(del.status).toBe(200);
    // (A question that finds no document answers the knowledge graph's error, and the graph is down here.)
    expect(await sources(b, ragId, 'glacier tours lighthouse')).toEqual(['lighthouse.txt']);
    expect(scans.length).toBe(firstScans); // every change applied, no chunk read again
  } finally {
    await conn.close();
  }
});
