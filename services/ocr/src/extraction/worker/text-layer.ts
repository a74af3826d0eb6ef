/** Reads a PDF's text layer page by page with pdfjs-dist, in reading order. */
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs' with { 'resolution-mode': 'import' };

import { readingOrder, type TextBox } from './reading-order';

type PdfJs = typeof PdfJsModule;
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

/** A document open for reading, or why it cannot be opened. */
export type Opened =
  { ok: true; pdf: PdfDocument; pdfjs: PdfJs } | { ok: false; reason: 'encrypted' | 'corrupt'; message: string };

let loaded: Promise<PdfJs> | undefined;
const pdfjsModule = () => (loaded ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

/**
 * Opens `data` without running any of its code or loading its fonts into anything: no eval (Type 3 and PostScript
 * functions are interpreted), no font faces, no system fonts; CJK CMaps and the standard fonts from pdfjs-dist's files.
 */
export async function openPdf(data: Uint8Array, cMapDir: string, fontDir: string): Promise<Opened> {
  const pdfjs = await pdfjsModule();
  const task = pdfjs.getDocument({
    data,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    verbosity: 0,
    cMapUrl: cMapDir,
    cMapPacked: true,
    standardFontDataUrl: fontDir,
  });
  try {
    return { ok: true, pdf: await task.promise, pdfjs };
  } catch (err) {
    await task.destroy().catch(() => undefined);
    const name = err instanceof Error ? err.name : '';
    if (name === 'PasswordException')
      return { ok: false, reason: 'encrypted', message: 'The PDF is encrypted: a password is needed to open it' };
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, reason: 'corrupt', message: `The PDF is damaged and cannot be read (${why.slice(0, 200)})` };
  }
}

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  height: number;
}

const isTextItem = (i: object): i is TextItemLike => 'str' in i && 'transform' in i;

/** A run's box in viewport space: its baseline from `t`'s origin along `width`, its glyphs from 0.2 below to 0.8 above. */
function boxOf(pdfjs: PdfJs, viewport: number[], item: TextItemLike): TextBox {
  const [a, b, c, d, e, f] = pdfjs.Util.transform(viewport, item.transform) as number[];
  const along = Math.hypot(a!, b!) || 1;
  const upLen = Math.hypot(c!, d!) || 1;
  const size = upLen;
  const u = [(a! / along) * item.width, (b! / along) * item.width];
  // Text space "up" maps to (c, d); in viewport space that points to smaller y for upright text.
  const v = [c! / upLen, d! / upLen];
  const corners = [-0.2, 0.8].flatMap((k) =>
    [0, 1].map((s) => [e! + k * size * v[0]! + s * u[0]!, f! + k * size * v[1]! + s * u[1]!]),
  );
  const xs = corners.map((p) => p[0]!);
  const ys = corners.map((p) => p[1]!);
  return { str: item.str, x0: Math.min(...xs), x1: Math.max(...xs), y0: Math.min(...ys), y1: Math.max(...ys), size };
}

/** Page `n`'s text in reading order ('' when it has no text layer). */
export async function pageText(pdfjs: PdfJs, pdf: PdfDocument, n: number): Promise<string> {
  const page: PdfPage = await pdf.getPage(n);
  try {
    const viewport = page.getViewport({ scale: 1 }).transform;
    const content = await page.getTextContent({ includeMarkedContent: false });
    const boxes = content.items.flatMap((item) => (isTextItem(item) ? [boxOf(pdfjs, viewport, item)] : []));
    return readingOrder(boxes);
  } finally {
    page.cleanup();
  }
}
