/** Scanned pages: rasterized by pdftoppm and read by tesseract (scripts/install-ocr.sh installs both). */
import { contents, startOcrApp, upload, type OcrTestApp } from './support/helpers';
import { mixedPdf, scannedPdf } from './support/scan-fixtures';
import { textPdf } from './support/text-fixtures';

let t: OcrTestApp;
let key: string;
const SENTENCE = 'The quick brown fox jumps over the lazy dog';

beforeAll(async () => {
  t = await startOcrApp();
  key = await t.dbs.mintKey({ user_id: 'ada', org_id: 'org-scan' });
});
afterAll(() => t.close());

/** OCR text with whitespace runs folded, for comparing with what was drawn. */
const folded = (s: string) => s.replace(/\s+/g, ' ').trim();

it('a scanned page (an image, no text layer) is OCR-read: the known sentence comes back', async () => {
  const res = await upload(t.app, key, 'org-scan', await scannedPdf(SENTENCE));
  expect(res.status).toBe(200);
  expect(folded(contents(res.body)[0]!)).toContain(SENTENCE);
  // auto reads the text layer of the page (empty) and then runs it through OCR: two actions
  expect(res.body).toMatchObject({ ocr_pages: [1], total_actions: 2 });
});

it('a mixed document: the text page is read from its text layer, the scanned page by OCR', async () => {
  const res = await upload(t.app, key, 'org-scan', await mixedPdf('Typed introduction page', 'Scanned appendix page'));
  expect(res.status).toBe(200);
  const [typed, scanned] = contents(res.body);
  expect(typed).toBe('Typed introduction page');
  expect(folded(scanned!)).toContain('Scanned appendix page');
  expect(res.body).toMatchObject({ page_count: 2, ocr_pages: [2], total_actions: 3 });
});

it('ocr=off leaves a scanned page empty and counts only the text-layer reads', async () => {
  const res = await upload(t.app, key, 'org-scan', await mixedPdf('Typed page', 'Scanned page'), { ocr: 'off' });
  expect(res.status).toBe(200);
  expect(contents(res.body)).toEqual(['Typed page', '']);
  expect(res.body).toMatchObject({ ocr_pages: [], total_actions: 2 });
});

it('ocr=force runs every page through OCR, text layer or not, and reads no text layer', async () => {
  const res = await upload(t.app, key, 'org-scan', await textPdf([['Forced optical reading']], [460, 80]), {
    ocr: 'force',
  });
  expect(res.status).toBe(200);
  expect(folded(contents(res.body)[0]!)).toContain('Forced optical reading');
  expect(res.body).toMatchObject({ ocr_pages: [1], total_actions: 1 });
});

it('more pages needing OCR than the per-document bound → 422 before any is read', async () => {
  const small = await startOcrApp({ ocr: { languages: 'eng', dpi: 150, maxOcrPages: 1 } });
  try {
    const k = await small.dbs.mintKey({ user_id: 'ada', org_id: 'org-scan' });
    const res = await upload(small.app, k, 'org-scan', await textPdf([['a'], ['b']]), { ocr: 'force' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'file'], type: 'pdf_too_many_ocr_pages' }),
    ]);
  } finally {
    await small.close();
  }
});
