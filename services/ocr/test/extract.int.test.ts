/** Text-layer extraction end to end on real FerretDB: pages, reading order, scripts, rotation, ownership, keys. */
import { readdirSync } from 'node:fs';
import request from 'supertest';

import { contents, startOcrApp, upload, type OcrTestApp } from './support/helpers';
import { NON_LATIN, nonLatinPdf, textPdf, TWO_COLUMNS, twoColumnPdf } from './support/text-fixtures';

let t: OcrTestApp;
let key: string;
let otherOrgKey: string;

beforeAll(async () => {
  t = await startOcrApp();
  key = await t.dbs.mintKey({ user_id: 'ada', org_id: 'org-acme' });
  otherOrgKey = await t.dbs.mintKey({ user_id: 'bob', org_id: 'org-globex' });
});
afterAll(() => t.close());

const PAGES = [
  ['First page, first line', 'First page, second line'],
  ['Second page says hello'],
  ['Third page', 'has', 'four lines', 'in all'],
];

it('a multi-page text PDF → 200 with data keyed "1".."3", each {page, content}, and total_actions = pages read', async () => {
  const res = await upload(t.app, key, 'org-acme', await textPdf(PAGES), { filename: 'three.pdf' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: 'success',
    total_actions: 3,
    page_count: 3,
    ocr_pages: [],
    filename: 'three.pdf',
  });
  expect(Object.keys(res.body.data)).toEqual(['1', '2', '3']);
  expect(res.body.data['2']).toEqual({ page: 2, content: 'Second page says hello' });
  expect(contents(res.body)).toEqual(PAGES.map((lines) => lines.join('\n')));
  expect(res.body.id).toMatch(/^[0-9a-f]{24}$/);
});

it('a two-column page drawn row by row reads title, then the left column, then the right one', async () => {
  const res = await upload(t.app, key, 'org-acme', await twoColumnPdf());
  expect(res.status).toBe(200);
  expect(contents(res.body)[0]!.split('\n')).toEqual([TWO_COLUMNS.title, ...TWO_COLUMNS.left, ...TWO_COLUMNS.right]);
});

it('Cyrillic, CJK and rotated text come out as written', async () => {
  const res = await upload(t.app, key, 'org-acme', await nonLatinPdf());
  expect(res.status).toBe(200);
  const lines = contents(res.body)[0]!.split('\n');
  expect(lines).toEqual(expect.arrayContaining([NON_LATIN.cyrillic, NON_LATIN.cjk, NON_LATIN.rotated]));
});

it('GET /extract/{id} reads the stored result again within the organization, 404 for another one', async () => {
  const created = await upload(t.app, key, 'org-acme', await textPdf([['Stored text']]));
  expect(created.status).toBe(200);
  const again = await request(t.app).get(`/extract/${created.body.id}`).set('x-api-key', key);
  expect(again.status).toBe(200);
  expect(again.body).toEqual(created.body);

  const other = await request(t.app).get(`/extract/${created.body.id}`).set('x-api-key', otherOrgKey);
  expect([other.status, other.body]).toEqual([404, { detail: 'Extraction not found' }]);
  const wrongQuery = await request(t.app)
    .get(`/extract/${created.body.id}?organization_id=org-globex`)
    .set('x-api-key', key);
  expect([wrongQuery.status, wrongQuery.body]).toEqual([404, { detail: 'Organization not found' }]);
  for (const id of ['000000000000000000000000', 'not-an-id']) {
    expect((await request(t.app).get(`/extract/${id}`).set('x-api-key', key)).status).toBe(404);
  }
});

it("an organization_id other than the key's → 404 Organization not found, and nothing is read or stored", async () => {
  const stored = () => t.dbs.conn.collection('extractions').countDocuments();
  const before = await stored();
  const res = await upload(t.app, otherOrgKey, 'org-acme', await textPdf([['Not yours']]));
  expect([res.status, res.body]).toEqual([404, { detail: 'Organization not found' }]);
  expect(await stored()).toBe(before);
});

it('a missing or bad API key → 403 with the contract detail, on both routes', async () => {
  const pdf = Buffer.from(await textPdf([['x']]));
  const noKey = await request(t.app).post('/extract?organization_id=org-acme').attach('file', pdf, 'a.pdf');
  expect([noKey.status, noKey.body]).toEqual([403, { detail: 'API key missing' }]);
  const badKey = await request(t.app)
    .post('/extract?organization_id=org-acme')
    .set('x-api-key', 'sk_notakey')
    .attach('file', pdf, 'a.pdf');
  expect([badKey.status, badKey.body]).toEqual([403, { detail: 'Invalid Permission' }]);
  const read = await request(t.app).get('/extract/000000000000000000000000');
  expect([read.status, read.body]).toEqual([403, { detail: 'API key missing' }]);
});

it('query validation: organization_id required, ocr one of auto|off|force → 422 with loc', async () => {
  const pdf = await textPdf([['x']]);
  const missing = await request(t.app).post('/extract').set('x-api-key', key).attach('file', Buffer.from(pdf), 'a.pdf');
  expect(missing.status).toBe(422);
  expect(missing.body.detail).toEqual([
    expect.objectContaining({ loc: ['query', 'organization_id'], type: 'missing' }),
  ]);
  const badMode = await upload(t.app, key, 'org-acme', pdf, { ocr: 'sometimes' });
  expect(badMode.status).toBe(422);
  expect(badMode.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'ocr'], type: 'enum' })]);
});

it('uploads are removed from disk once answered', async () => {
  const res = await upload(t.app, key, 'org-acme', await textPdf([['Temporary']]));
  expect(res.status).toBe(200);
  // Removal starts when the response closes: give it a moment.
  const deadline = Date.now() + 2_000;
  while (readdirSync(t.uploadDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(readdirSync(t.uploadDir)).toEqual([]);
});
