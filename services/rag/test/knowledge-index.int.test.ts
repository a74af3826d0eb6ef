/**
 * The knowledge base on the real stack: embeddings (a local OpenAI-protocol stand-in) and hybrid ranking, deleting
 * documents and whole knowledge bases (chunks and vectors with them), and owner scoping. The graph service is down
 * throughout. The app: knowledge-fixture.ts.
 */
import request from 'supertest';

import { KNOWLEDGE_LIMITS } from '../src/knowledge/knowledge.schemas';
import { list, retrieve, trainText, vectorCount } from './knowledge-calls';
import { embeddings, hybridRag, k, lexicalRag, useKnowledgeApp } from './knowledge-fixture';
import { ALICE, BOB, trainFile } from './knowledge.helpers';

useKnowledgeApp();

describe('embeddings and hybrid ranking', () => {
  it('embeds chunks into the vector store and ranks the semantically closest first', async () => {
    const res = await trainText(k.alice, hybridRag, {
      data: [
        { text: 'Our bakery sells bread and croissant every morning.', source: 'bakery' },
        { text: 'The garage repairs every sedan brought in.', source: 'garage' },
        { text: 'Sailing lessons on a yacht leave daily.', source: 'harbour' },
      ],
    });
    expect(res.status).toBe(200);
    expect(await vectorCount(hybridRag)).toBe(3);
    // "automobile" appears in no document: only the vectors (concept "vehicle") can rank the garage first.
    const found = await retrieve(k.alice, hybridRag, 'automobile', 3);
    expect(found.status).toBe(200);
    expect(found.body.results[0].title).toBe('garage');
  });

  it('scores are relevance 0–1 that a client threshold such as 0.4 can use, the same on any corpus', async () => {
    const ragId = await k.createRag(k.alice);
    const trained = await trainText(k.alice, ragId, {
      data: [
        { text: 'The lighthouse keeper logs every passing ship in the harbour ledger.', source: 'keeper' },
        { text: 'Harbour ledger entries are copied to the archive each winter.', source: 'archive' },
        { text: 'Bread is baked at dawn in the village oven.', source: 'oven' },
      ],
    });
    expect(trained.status).toBe(200);
    const found = await retrieve(k.alice, ragId, 'lighthouse keeper harbour ledger', 5);
    const scores = (found.body.results as { title: string; score: number }[]).map((r) => [r.title, r.score] as const);
    // The best match, on the words only it has, passes a common threshold of 0.4 even in a corpus of three.
    expect(scores[0]![0]).toBe('keeper');
    expect(scores[0]![1]).toBeGreaterThan(0.4);
    for (const [, score] of scores) expect(score).toBeGreaterThan(0);
    for (const [, score] of scores) expect(score).toBeLessThan(1);
    // The second document shares only the two commoner words of the four: a weak partial match, below the best.
    const archive = scores.find(([title]) => title === 'archive')![1];
    expect(archive).toBeLessThan(scores[0]![1]);
    // With embeddings, a semantic match without a shared word scores its cosine similarity.
    const semantic = await retrieve(k.alice, hybridRag, 'automobile', 3);
    expect(semantic.body.results[0].score).toBeGreaterThan(0.4);
    expect(semantic.body.results[0].score).toBeLessThanOrEqual(1);
  });

  it('keeps the chunks for lexical search when the embeddings provider fails', async () => {
    const ragId = await k.createRag(k.alice, {
      embedding_credential_id: await k.credential(ALICE, embeddings.baseUrl),
    });
    embeddings.fail(1);
    const res = await trainText(k.alice, ragId, {
      data: [{ text: 'The Quillon bridge opened in spring.', source: 'b' }],
    });
    expect(res.status).toBe(200);
    expect(await vectorCount(ragId)).toBe(0);
    expect(k.lines.join('\n')).toMatch(/chunks kept for lexical search only/);
    const found = await retrieve(k.alice, ragId, 'Quillon bridge', 1);
    expect(found.body.results[0].text).toBe('The Quillon bridge opened in spring.');
  });
});

describe('deleting documents', () => {
  it('DELETE /v3/rag/{id}/docs/ removes documents, chunks and vectors: retrieval no longer returns them', async () => {
    const ragId = await k.createRag(k.alice, {
      embedding_credential_id: await k.credential(ALICE, embeddings.baseUrl),
    });
    const trained = await trainText(k.alice, ragId, {
      data: [
        { text: 'The sedan was parked in the garage.', source: 'keep' },
        { text: 'Bread from the bakery, with pastry.', source: 'drop' },
      ],
    });
    const [, drop] = trained.body.documents;
    expect(await vectorCount(ragId)).toBe(2);
    const del = await request(k.app)
      .delete(`/v3/rag/${ragId}/docs/`)
      .set('x-api-key', k.alice)
      .send([drop.id, 'aaaaaaaaaaaaaaaaaaaaaaaa']);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: 1 });
    expect((await list(k.alice, ragId)).body.documents.map((d: { source: string }) => d.source)).toEqual(['keep']);
    expect(await vectorCount(ragId)).toBe(1);
    const bread = await retrieve(k.alice, ragId, 'bread bakery pastry croissant', 5);
    expect(bread.body.results.map((r: { title: string }) => r.title)).not.toContain('drop');
    expect(await k.dbs.conn.collection('knowledge_chunks').countDocuments({ document_id: drop.id })).toBe(0);

    const tooMany = await request(k.app)
      .delete(`/v3/rag/${ragId}/docs/`)
      .set('x-api-key', k.alice)
      .send(Array.from({ length: KNOWLEDGE_LIMITS.maxDeleteIds + 1 }, (_, i) => `id${i}`));
    expect(tooMany.status).toBe(422);
    const notArray = await request(k.app).delete(`/v3/rag/${ragId}/docs/`).set('x-api-key', k.alice).send({ ids: [] });
    expect(notArray.status).toBe(422);
  });

  it('DELETE /v3/rag/{id}/reset/ removes everything of the rag id, and only of it', async () => {
    const ragId = await k.createRag(k.alice, {
      embedding_credential_id: await k.credential(ALICE, embeddings.baseUrl),
    });
    await trainText(k.alice, ragId, {
      data: [
        { text: 'The yacht left the harbour.', source: 'a' },
        { text: 'Car.', source: 'b' },
      ],
    });
    const before = (await list(k.alice, hybridRag)).body.total;
    const res = await request(k.app).delete(`/v3/rag/${ragId}/reset/`).set('x-api-key', k.alice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 2 });
    expect((await list(k.alice, ragId)).body).toEqual({ documents: [], total: 0 });
    expect(await vectorCount(ragId)).toBe(0);
    expect((await retrieve(k.alice, ragId, 'yacht harbour')).status).toBe(503); // nothing left; the graph is down
    expect((await list(k.alice, hybridRag)).body.total).toBe(before);
  });

  it('deleting the RAG configuration removes its knowledge base', async () => {
    const ragId = await k.createRag(k.alice, {
      embedding_credential_id: await k.credential(ALICE, embeddings.baseUrl),
    });
    await trainText(k.alice, ragId, { data: [{ text: 'The harbour boat.', source: 'a' }] });
    expect(await vectorCount(ragId)).toBe(1);
    expect((await request(k.app).delete(`/v3/rag/${ragId}/`).set('x-api-key', k.alice)).status).toBe(204);
    expect(await k.dbs.conn.collection('knowledge_documents').countDocuments({ rag_id: ragId })).toBe(0);
    expect(await k.dbs.conn.collection('knowledge_chunks').countDocuments({ rag_id: ragId })).toBe(0);
    expect(await vectorCount(ragId)).toBe(0);
    expect((await request(k.app).delete(`/v3/rag/${ragId}/`).set('x-api-key', k.alice)).status).toBe(404);
  });
});

describe('owner scoping', () => {
  it("another owner's rag id is 404 on every route, and nothing of it changes", async () => {
    const ragId = await k.createRag(k.alice);
    await trainText(k.alice, ragId, { data: [{ text: 'Secret of alice.', source: 'a' }] });
    const bob = k.bob;
    const answers = await Promise.all([
      trainText(bob, ragId, { data: [{ text: 'x', source: 'y' }] }),
      trainFile(k.app, bob, ragId, 'txt', Buffer.from('hello'), { filename: 'a.txt' }),
      request(k.app)
        .post(`/v3/train/website/?rag_id=${ragId}`)
        .set('x-api-key', bob)
        .send({ urls: ['https://example.org/'] }),
      list(bob, ragId),
      request(k.app).delete(`/v3/rag/${ragId}/docs/`).set('x-api-key', bob).send(['aaaaaaaaaaaaaaaaaaaaaaaa']),
      request(k.app).delete(`/v3/rag/${ragId}/reset/`).set('x-api-key', bob),
      retrieve(bob, ragId, 'secret'),
      request(k.app).delete(`/v3/rag/${ragId}/`).set('x-api-key', bob),
      list(bob, 'not-an-id'),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'RAG configuration not found' });
    }
    expect((await list(k.alice, ragId)).body.total).toBe(1);
    expect(BOB.user_id).not.toBe(ALICE.user_id);
  });

  it('a request without a valid API key is refused as on every route, before its body is read', async () => {
    const refused = await request(k.app).get('/v3/rag/');
    expect(refused.status).toBeGreaterThanOrEqual(401);
    const text = await request(k.app).post(`/v3/train/text/?rag_id=${lexicalRag}`).send({ data: [] });
    expect([text.status, text.body]).toEqual([refused.status, refused.body]);
    const file = await trainFile(k.app, 'bad-key', lexicalRag, 'pdf', Buffer.from('%PDF-'));
    expect(file.status).toBe(refused.status);
  });
});
