/** Files that are not readable PDFs, and bodies that are not uploads: each has its own 4xx, never a 5xx. */
import request from 'supertest';

import { startOcrApp, upload, type OcrTestApp } from './support/helpers';
import { encryptedPdf, textPng } from './support/scan-fixtures';
import { blankPages, textPdf } from './support/text-fixtures';

let t: OcrTestApp;
let key: string;
let pdf: Uint8Array;

beforeAll(async () => {
  t = await startOcrApp();
  key = await t.dbs.mintKey({ user_id: 'ada', org_id: 'org-bad' });
  pdf = await textPdf([['A perfectly fine page'], ['And a second one']]);
});
afterAll(() => t.close());

/** The one 422 entry of a refused file. */
async function refused(bytes: Uint8Array, filename = 'doc.pdf') {
  const res = await upload(t.app, key, 'org-bad', bytes, { filename });
  expect(res.status).toBe(422);
  expect(res.body.detail).toHaveLength(1);
  const [entry] = res.body.detail as { loc: string[]; msg: string; type: string }[];
  expect(entry!.loc).toEqual(['body', 'file']);
  return entry!;
}

it.each([
  ['zero bytes', () => new Uint8Array(0), 'file_empty', /empty/],
  ['a PNG renamed .pdf', () => textPng('not a pdf'), 'pdf_invalid', /not a PDF/],
  ['a header-only file', () => Buffer.from('%PDF-1.7\n'), 'pdf_truncated', /truncated/],
  ['a truncated PDF (first half)', () => pdf.slice(0, Math.floor(pdf.length / 2)), 'pdf_truncated', /truncated/],
  ['an encrypted PDF (user password)', () => encryptedPdf(pdf), 'pdf_encrypted', /password/],
])('%s → 422 with a clear detail', async (_name, make, type, msg) => {
  const entry = await refused(await make());
  expect(entry.type).toBe(type);
  expect(entry.msg).toMatch(msg);
});

it('a file whose ends look right but whose body is garbage → 422 pdf_invalid', async () => {
  const garbage = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4096, 0x41), Buffer.from('\n%%EOF\n')]);
  expect((await refused(garbage)).type).toBe('pdf_invalid');
});

it('a PDF whose cross-reference table points nowhere is still read (the parser rebuilds it)', async () => {
  const text = Buffer.from(pdf).toString('latin1');
  const broken = Buffer.from(text.replace(/startxref\s+\d+/, 'startxref\n99999999'), 'latin1');
  expect(broken.equals(Buffer.from(pdf))).toBe(false);
  const res = await upload(t.app, key, 'org-bad', broken);
  expect(res.status).toBe(200);
  expect(res.body.data['1'].content).toBe('A perfectly fine page');
});

it('501 pages → 422 pdf_too_many_pages; 500 pages are read', async () => {
  const over = await refused(await blankPages(501));
  expect(over).toMatchObject({ type: 'pdf_too_many_pages', msg: expect.stringContaining('501 pages') });
  const atLimit = await upload(t.app, key, 'org-bad', await blankPages(500), { ocr: 'off' });
  expect(atLimit.status).toBe(200);
  expect(atLimit.body.page_count).toBe(500);
}, 60_000);

it('over 25 MiB → 413 {"detail":"Request body too large"}, whether or not a length is declared', async () => {
  const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(25 * 1024 * 1024 + 1, 0x20)]);
  const res = await upload(t.app, key, 'org-bad', big);
  expect([res.status, res.body]).toEqual([413, { detail: 'Request body too large' }]);
  const declared = await request(t.app)
    .post('/extract?organization_id=org-bad')
    .set('x-api-key', key)
    .set('content-type', 'multipart/form-data; boundary=x')
    .set('content-length', String(40 * 1024 * 1024))
    .send(Buffer.alloc(1024));
  expect([declared.status, declared.body]).toEqual([413, { detail: 'Request body too large' }]);
});

it.each([
  ['JSON', 'application/json', '{"file":"x"}'],
  ['urlencoded', 'application/x-www-form-urlencoded', 'file=x'],
  ['plain text', 'text/plain', '%PDF-1.7'],
])('a %s body → 415 Content-Type must be multipart/form-data', async (_name, type, body) => {
  const res = await request(t.app)
    .post('/extract?organization_id=org-bad')
    .set('x-api-key', key)
    .set('content-type', type)
    .send(body);
  expect([res.status, res.body]).toEqual([415, { detail: 'Content-Type must be multipart/form-data' }]);
});

it('no file, a file under another name, two files, or a large extra field → 422 naming the field', async () => {
  const post = () => request(t.app).post('/extract?organization_id=org-bad').set('x-api-key', key);
  const file = Buffer.from(pdf);
  const none = await post().field('note', 'hello');
  expect(none.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'file'], type: 'missing' })]);
  const renamed = await post().attach('document', file, 'a.pdf');
  expect(renamed.body.detail).toEqual([
    expect.objectContaining({ loc: ['body', 'document'], type: 'file_unexpected' }),
  ]);
  const two = await post().attach('file', file, 'a.pdf').attach('file', file, 'b.pdf');
  expect(two.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'file'], type: 'file_unexpected' })]);
  const bigField = await post().field('note', 'n'.repeat(5000)).attach('file', file, 'a.pdf');
  expect(bigField.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'note'], type: 'string_too_long' })]);
  for (const res of [none, renamed, two, bigField]) expect(res.status).toBe(422);
  const small = await post().field('note', 'a short note').attach('file', file, 'a.pdf');
  expect(small.status).toBe(200);
});

it('a malformed multipart body → 422 multipart_invalid', async () => {
  const res = await request(t.app)
    .post('/extract?organization_id=org-bad')
    .set('x-api-key', key)
    .set('content-type', 'multipart/form-data; boundary=zzz')
    .send('--zzz\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.7 cut short');
  expect(res.status).toBe(422);
  expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'multipart_invalid' })]);
});
