/** Scanned pages (an image of text, no text layer), encrypted PDFs and PNGs: made with poppler and qpdf at test time. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';

function inTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'ocr-fixture-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Page 1 of `pdf` as a PNG rendered by pdftoppm at `dpi`. */
export function pagePng(pdf: Uint8Array, dpi: number): Buffer {
  return inTempDir((dir) => {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-png', '-r', String(dpi), '-singlefile', join(dir, 'in.pdf'), join(dir, 'out')]);
    return readFileSync(join(dir, 'out.png'));
  });
}

/** A PNG of `sentence` in 20 pt Helvetica, rendered by pdftoppm at `dpi` from a small text PDF. */
export async function textPng(sentence: string, dpi = 150): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([460, 80]);
  page.drawText(sentence, { x: 20, y: 35, size: 20, font: await doc.embedFont(StandardFonts.Helvetica) });
  return pagePng(await doc.save(), dpi);
}

/** Adds a page that is only `png`, as a scanner makes it: an image and no text layer. */
export async function addScannedPage(doc: PDFDocument, png: Buffer, size: [number, number] = [460, 80]): Promise<void> {
  const image = await doc.embedPng(png);
  const page = doc.addPage(size);
  page.drawImage(image, { x: 0, y: 0, width: size[0], height: size[1] });
}

/** `count` scanned pages of size `size`, each the image of `pdf`'s first page at `dpi` (for benchmarks). */
export async function scanOf(pdf: Uint8Array, dpi: number, size: [number, number], count = 1): Promise<Uint8Array> {
  const png = pagePng(pdf, dpi);
  const doc = await PDFDocument.create();
  for (let i = 0; i < count; i++) await addScannedPage(doc, png, size);
  return doc.save();
}

/** One scanned page saying `sentence`. */
export async function scannedPdf(sentence: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  await addScannedPage(doc, await textPng(sentence));
  return doc.save();
}

/** A page with a text layer, then a scanned page. */
export async function mixedPdf(text: string, scanned: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([460, 80]).drawText(text, { x: 20, y: 35, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  await addScannedPage(doc, await textPng(scanned));
  return doc.save();
}

/** `pdf` encrypted by qpdf (AES-256) with a user password: it cannot be opened without one. */
export function encryptedPdf(pdf: Uint8Array): Buffer {
  return inTempDir((dir) => {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('qpdf', [
      '--encrypt',
      'user-secret',
      'owner-secret',
      '256',
      '--',
      join(dir, 'in.pdf'),
      join(dir, 'out.pdf'),
    ]);
    return readFileSync(join(dir, 'out.pdf'));
  });
}
