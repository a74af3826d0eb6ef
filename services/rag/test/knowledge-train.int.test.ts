/**
 * The knowledge base on the real stack, training: text items and text, DOCX and PDF files (the real OCR service reads
 * the PDFs), the named limits and refusals; retrieval finds what was trained although the graph service is down
 * throughout. The app: knowledge-fixture.ts.
 */
import request from 'supertest';

import { textPdf } from '../../ocr/test/support/text-fixtures';
import { KNOWLEDGE_LIMITS } from '../src/knowledge/knowledge.schemas';
import { list, retrieve, trainText } from './knowledge-calls';
import { k, lexicalRag, useKnowledgeApp } from './knowledge-fixture';
import { docxOf, trainFile, zipOf } from './knowledge.helpers';

useKnowledgeApp();

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

  trainsDocxAndPdfFiles();
});

function trainsDocxAndPdfFiles(): void {
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
}
