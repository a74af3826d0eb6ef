/** PDFs with a text layer, built with pdf-lib: nothing binary is checked in. */
import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { degrees, PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';

/** Fonts of the Debian packages scripts/install-ocr.sh installs: DejaVu has Cyrillic, Droid Sans Fallback has CJK. */
export const FONTS = {
  cyrillic: '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  cjk: '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf',
};

const LETTER: [number, number] = [612, 792];

/** One page per entry, each line of it 14 pt apart from the top. */
export async function textPdf(pages: string[][], size: [number, number] = LETTER): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage(size);
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: size[1] - 50 - i * 16, size: 11, font }));
  }
  return doc.save();
}

export const TWO_COLUMNS = {
  title: 'Quarterly Report of the Example Company',
  left: ['Left one alpha', 'Left two bravo', 'Left three charlie', 'Left four delta', 'Left five echo'],
  right: ['Right one kilo', 'Right two lima', 'Right three mike', 'Right four november', 'Right five oscar'],
};

/**
 * A full-width title over two columns, drawn row by row (left line, right line, next row…) as some producers do:
 * content-stream order is the wrong reading order on purpose.
 */
export async function twoColumnPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage(LETTER);
  page.drawText(TWO_COLUMNS.title, { x: 40, y: 740, size: 18, font });
  TWO_COLUMNS.left.forEach((line, i) => {
    page.drawText(line, { x: 40, y: 700 - i * 14, size: 11, font });
    page.drawText(TWO_COLUMNS.right[i]!, { x: 320, y: 700 - i * 14, size: 11, font });
  });
  return doc.save();
}

export const NON_LATIN = {
  cyrillic: 'Съешь же ещё этих мягких французских булок',
  cjk: '我能吞下玻璃而不伤身体',
  rotated: 'Sideways label text',
};

async function embed(doc: PDFDocument, path: string): Promise<PDFFont> {
  return doc.embedFont(readFileSync(path), { subset: true });
}

/** Cyrillic and CJK in embedded fonts, and a line of Latin rotated by 90°. */
export async function nonLatinPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const page = doc.addPage(LETTER);
  page.drawText(NON_LATIN.cyrillic, { x: 40, y: 700, size: 14, font: await embed(doc, FONTS.cyrillic) });
  page.drawText(NON_LATIN.cjk, { x: 40, y: 660, size: 14, font: await embed(doc, FONTS.cjk) });
  page.drawText(NON_LATIN.rotated, {
    x: 500,
    y: 200,
    size: 14,
    font: await doc.embedFont(StandardFonts.Helvetica),
    rotate: degrees(90),
  });
  return doc.save();
}

/** `count` blank pages: many pages, few bytes. */
export async function blankPages(count: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < count; i++) doc.addPage([200, 200]);
  return doc.save();
}
