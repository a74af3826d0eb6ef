/**
 * The knowledge base on the real stack: the real rag app (FerretDB, LanceDB in a temp folder), the real agent service
 * (credentials) and the real OCR service (PDF text) on loopback ports, a local OpenAI-protocol embeddings stand-in.
 * The graph service is down throughout: documents are retrieved all the same.
 */
import request from 'supertest';

import { startFakeEmbeddings, type FakeEmbeddings } from '@platform/testing';

import { textPdf } from '../../ocr/test/support/text-fixtures';
import { KNOWLEDGE_LIMITS } from '../src/knowledge/knowledge.schemas';
import { ALICE, BOB, docxOf, startKnowledgeApp, trainFile, zipOf, type KnowledgeTestApp } from './knowledge.helpers';

const CONCEPTS = {
  vehicle: ['automobile', 'car', 'sedan', 'vehicle', 'garage'],
  food: ['bread', 'bakery', 'pastry', 'croissant'],
  sea: ['sailing', 'yacht', 'harbour', 'boat'],
};

let k: KnowledgeTestApp;
let embeddings: FakeEmbeddings;
/** Alice's configuration with an embedding credential (hybrid search) and one without (BM25 only). */
let hybridRag: string;
let lexicalRag: string;

beforeAll(async () => {
  embeddings = await startFakeEmbeddings(CONCEPTS);
  k = await startKnowledgeApp({ allowHosts: [`127.0.0.1:${embeddings.port}`] });
  const credential = await k.credential(ALICE, embeddings.baseUrl);
  hybridRag = await k.createRag(k.alice, { embedding_credential_id: credential });
  lexicalRag = await k.createRag(k.alice);
}, 60_000);
afterAll(async () => {
  await k?.close();
  await embeddings?.close();
});

const trainText = (key: string, ragId: string, body: unknown) =>
  request(k.app)
    .post(`/v3/train/text/?rag_id=${ragId}`)
    .set('x-api-key', key)
    .send(body as object);
const retrieve = (key: string, ragId: string, query: string, topK = 5) =>
  request(k.app)
    .get(`/v3/rag/${ragId}/retrieve/?query=${encodeURIComponent(query)}&top_k=${topK}`)
    .set('x-api-key', key);
const list = (key: string, ragId: string) => request(k.app).get(`/v3/rag/documents/${ragId}/`).set('x-api-key', key);
const vectorCount = (ragId: string) => k.vectors.forProvider('lancedb').count(ragId);

describe('POST /v3/train/text/', () => {
  it('stores each item as a document of chunks, lists it, and retrieval finds it (graph down: documents only)', async () => {
    const ragId = await k.createRag(k.alice);
    const long = `${'Filler sentence about nothing in particular. '.repeat(60)}The Zorblax reactor runs on helium.`;
    const res = await trainText(k.alice, ragId, {
      data: [
        { text: 'Quentin Tarrow founded the Mirelle observatory in 1911.', source: 'https://example.org/history' },
        { text: long, source: 'notes.txt', metadata: { team: 'physics', tags: ['a', 'b'], 'odd.key': { $x: 1 } } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: expect.any(String),
      rag_id: ragId,
      documents: [
        { id: expect.stringMatching(/^[0-9a-f]{24}$/), source: 'https://example.org/history' },
        { id: expect.stringMatching(/^[0-9a-f]{24}$/), source: 'notes.txt' },
      ],
      chunks: expect.any(Number),
    });
    expect(res.body.chunks).toBeGreaterThan(2); // the long text is cut into several chunks

    const listed = await list(k.alice, ragId);
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(2);
    const notes = listed.body.documents.find((d: { source: string }) => d.source === 'notes.txt');
    expect(notes).toEqual({
      id: res.body.documents[1].id,
      source: 'notes.txt',
      kind: 'text',
      metadata: { team: 'physics', tags: ['a', 'b'], 'odd.key': { $x: 1 } },
      chunks: res.body.chunks - 1,
      created_at: expect.any(String),
    });

    const found = await retrieve(k.alice, ragId, 'Who founded the Mirelle observatory?');
    expect(found.status).toBe(200);
    expect(found.body.results[0]).toEqual(
      expect.objectContaining({
        chunk_id: expect.any(String),
        text: 'Quentin Tarrow founded the Mirelle observatory in 1911.',
        url: 'https://example.org/history',
        title: 'https://example.org/history',
        score: expect.any(Number),
      }),
    );
    expect(found.body.facts).toEqual([]);
    const reactor = await retrieve(k.alice, ragId, 'Zorblax reactor helium', 1);
    expect(reactor.body.results).toHaveLength(1);
    expect(reactor.body.results[0]).toEqual(expect.objectContaining({ url: '', title: 'notes.txt' }));
    expect(reactor.body.results[0].text).toContain('Zorblax reactor runs on helium');
    expect(k.lines.join('\n')).toMatch(/knowledge graph retrieval failed; documents only/);
  });

  it('with nothing trained and the graph down, retrieval answers the graph error as before', async () => {
    const ragId = await k.createRag(k.alice);
    const res = await retrieve(k.alice, ragId, 'anything');
    expect(res.status).toBe(503);
  });

  it('refuses bodies over the named limits: items, characters, metadata size and depth, empty text, body size', async () => {
    const item = { text: 'hello', source: 's' };
    const tooMany = await trainText(k.alice, lexicalRag, {
      data: Array.from({ length: KNOWLEDGE_LIMITS.maxTextItems + 1 }, () => item),
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'data'], type: 'too_long' }));

    const tooLong = await trainText(k.alice, lexicalRag, {
      data: [{ text: 'x'.repeat(KNOWLEDGE_LIMITS.maxTextChars + 1), source: 's' }],
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0].loc).toEqual(['body', 'data', 0, 'text']);

    const bigMeta = await trainText(k.alice, lexicalRag, {
      data: [{ ...item, metadata: { blob: 'm'.repeat(KNOWLEDGE_LIMITS.maxMetadataBytes) } }],
    });
    expect(bigMeta.status).toBe(422);
    expect(bigMeta.body.detail[0].loc).toEqual(['body', 'data', 0, 'metadata']);

    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < KNOWLEDGE_LIMITS.maxMetadataDepth; i++) deep = { d: deep };
    const deepMeta = await trainText(k.alice, lexicalRag, { data: [{ ...item, metadata: deep }] });
    expect(deepMeta.status).toBe(422);
    expect(deepMeta.body.detail[0].msg).toMatch(/nested at most/);

    const blank = await trainText(k.alice, lexicalRag, { data: [{ text: '   \n  ', source: 'blank' }] });
    expect(blank.status).toBe(422);
    expect(blank.body.detail[0]).toEqual(
      expect.objectContaining({ loc: ['body', 'data', 0, 'text'], type: 'text_empty' }),
    );

    const huge = await trainText(k.alice, lexicalRag, {
      data: Array.from({ length: 17 }, () => ({ text: 'y'.repeat(KNOWLEDGE_LIMITS.maxTextChars), source: 's' })),
    });
    expect(huge.status).toBe(413);

    const nul = await trainText(k.alice, lexicalRag, { data: [{ text: 'a\u0000b', source: 's' }] });
    expect(nul.status).toBe(422);
    expect((await list(k.alice, lexicalRag)).body.total).toBe(0);
  });
});

describe('POST /v3/train/txt/, /docx/, /pdf/', () => {
  it('trains a UTF-8 text file with its form fields: chunking, data_parser and extra_info kept as metadata', async () => {
    const ragId = await k.createRag(k.alice);
    const text = `\ufeff${'Première ligne du fichier. '.repeat(20)}Le phare de Kerbrat s'allume à minuit.`;
    const res = await trainFile(k.app, k.alice, ragId, 'txt', Buffer.from(text, 'utf8'), {
      filename: 'phare.txt',
      fields: { chunk_size: '200', chunk_overlap: '20', data_parser: 'txt_parser', extra_info: '{"lang":"fr"}' },
    });
    expect(res.status).toBe(200);
    expect(res.body.documents).toEqual([{ id: expect.any(String), source: 'phare.txt' }]);
    expect(res.body.chunks).toBeGreaterThan(2);
    const [doc] = (await list(k.alice, ragId)).body.documents;
    expect(doc).toEqual(
      expect.objectContaining({
        kind: 'txt',
        metadata: { lang: 'fr', filename: 'phare.txt', data_parser: 'txt_parser' },
        chunks: res.body.chunks,
      }),
    );
    const found = await retrieve(k.alice, ragId, 'phare de Kerbrat minuit', 1);
    expect(found.body.results[0].text).toContain("Le phare de Kerbrat s'allume à minuit.");
  });

  it('refuses bad text files and bad form fields', async () => {
    const bad = (bytes: Buffer, fields: Record<string, string> = {}) =>
      trainFile(k.app, k.alice, lexicalRag, 'txt', bytes, { filename: 'x.txt', fields });
    const notUtf8 = await bad(Buffer.from([0x48, 0xff, 0xfe, 0x49]));
    expect(notUtf8.status).toBe(415);
    expect(notUtf8.body.detail).toBe('The file is not UTF-8 text');
    const nul = await bad(Buffer.from('a\u0000b'));
    expect(nul.status).toBe(422);
    expect(nul.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'file'], type: 'string_nul' }));
    const empty = await bad(Buffer.from(' \n\t '));
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].msg).toBe('No text could be read from x.txt');
    const overlap = await bad(Buffer.from('text'), { chunk_size: '200', chunk_overlap: '200' });
    expect(overlap.status).toBe(422);
    expect(overlap.body.detail[0].loc).toEqual(['body', 'chunk_overlap']);
    const size = await bad(Buffer.from('text'), { chunk_size: String(KNOWLEDGE_LIMITS.maxChunkSize + 1) });
    expect(size.status).toBe(422);
    const info = await bad(Buffer.from('text'), { extra_info: '[1, 2' });
    expect(info.status).toBe(422);
    expect(info.body.detail[0].loc).toEqual(['body', 'extra_info']);
    const notObject = await bad(Buffer.from('text'), { extra_info: '[1, 2]' });
    expect(notObject.status).toBe(422);
    const missing = await request(k.app)
      .post(`/v3/train/txt/?rag_id=${lexicalRag}`)
      .set('x-api-key', k.alice)
      .field('chunk_size', '500');
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'file'], type: 'missing' }));
    const json = await request(k.app)
      .post(`/v3/train/txt/?rag_id=${lexicalRag}`)
      .set('x-api-key', k.alice)
      .send({ text: 'x' });
    expect(json.status).toBe(415);
    expect((await list(k.alice, lexicalRag)).body.total).toBe(0);
  });

  it(`refuses a file over ${KNOWLEDGE_LIMITS.maxFileBytes} bytes with 413`, async () => {
    const res = await trainFile(
      k.app,
      k.alice,
      lexicalRag,
      'txt',
      Buffer.alloc(KNOWLEDGE_LIMITS.maxFileBytes + 1, 'a'),
    );
    expect(res.status).toBe(413);
  });

  it('trains a DOCX (mammoth) and refuses what is not one', async () => {
    const ragId = await k.createRag(k.alice);
    const docx = docxOf(['Annual report of the Velmora guild.', 'The guild treasurer is Ines Parraga.']);
    const res = await trainFile(k.app, k.alice, ragId, 'docx', docx, { filename: 'report.docx' });
    expect(res.status).toBe(200);
    expect(res.body.documents[0].source).toBe('report.docx');
    const found = await retrieve(k.alice, ragId, 'Velmora guild treasurer', 1);
    expect(found.body.results[0].text).toMatch(
      /Annual report of the Velmora guild\.\s+The guild treasurer is Ines Parraga\./,
    );

    const notZip = await trainFile(k.app, k.alice, ragId, 'docx', Buffer.from('plain words'), { filename: 'a.docx' });
    expect(notZip.status).toBe(415);
    const otherZip = await trainFile(k.app, k.alice, ragId, 'docx', zipOf({ 'a.txt': 'hello' }), {
      filename: 'b.docx',
    });
    expect(otherZip.status).toBe(422);
    expect(otherZip.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'file'], type: 'docx_invalid' }));
    const noText = await trainFile(k.app, k.alice, ragId, 'docx', docxOf(['']), { filename: 'empty.docx' });
    expect(noText.status).toBe(422);
    expect(noText.body.detail[0].msg).toBe('No text could be read from empty.docx');
  });

  it('trains a PDF through the OCR service; its refusals are passed on; a non-PDF is 415', async () => {
    const ragId = await k.createRag(k.alice);
    const pdf = await textPdf([
      ['Page one tells of the Ostrava canal.'],
      ['Page two names the lock keeper Dara Venn.'],
    ]);
    const res = await trainFile(k.app, k.alice, ragId, 'pdf', pdf, {
      filename: 'canal.pdf',
      fields: { data_parser: 'llmsherpa', extra_info: '{}' },
    });
    expect(res.status).toBe(200);
    const found = await retrieve(k.alice, ragId, 'lock keeper Dara Venn', 1);
    expect(found.body.results[0].text).toContain('Dara Venn');
    expect(found.body.results[0].title).toBe('canal.pdf');
    const [doc] = (await list(k.alice, ragId)).body.documents;
    expect(doc).toEqual(
      expect.objectContaining({ kind: 'pdf', metadata: { filename: 'canal.pdf', data_parser: 'llmsherpa' } }),
    );

    const notPdf = await trainFile(k.app, k.alice, ragId, 'pdf', Buffer.from('hello'), { filename: 'x.pdf' });
    expect(notPdf.status).toBe(415);
    expect(notPdf.body.detail).toBe('The file is not a PDF');
    const corrupt = Buffer.from('%PDF-1.7\nthis is no PDF body at all\n%%EOF\n');
    const broken = await trainFile(k.app, k.alice, ragId, 'pdf', corrupt, { filename: 'broken.pdf' });
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'file'], type: 'pdf_invalid' }));
    const truncated = Buffer.from(pdf).subarray(0, 200);
    const cut = await trainFile(k.app, k.alice, ragId, 'pdf', truncated, { filename: 'cut.pdf' });
    expect(cut.status).toBe(422);
    expect(cut.body.detail[0].type).toBe('pdf_truncated');
    expect((await list(k.alice, ragId)).body.total).toBe(1);
  }, 60_000);
});

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
