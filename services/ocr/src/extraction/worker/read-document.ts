/** The whole reading of one document: text layer per page, then OCR for the pages that need it. */
import { readFile } from 'node:fs/promises';

import { cleanText } from './clean-text';
import { ocrPage, OcrUnavailableError } from './ocr-page';
import type { DocumentJob, DocumentOutcome } from './protocol';
import { openPdf, pageText } from './text-layer';

function ocrTargets(job: DocumentJob, texts: string[]): number[] {
  if (job.ocr === 'off') return [];
  return texts.flatMap((text, i) => (job.ocr === 'force' || text.length === 0 ? [i + 1] : []));
}

/** Reads `job.file`; never throws for anything the document does (that is an outcome), only for our own faults. */
export async function readDocument(job: DocumentJob): Promise<DocumentOutcome> {
  const opened = await openPdf(new Uint8Array(await readFile(job.file)), job.cMapDir, job.fontDir);
  if (!opened.ok) return opened;
  const { pdf, pdfjs } = opened;
  try {
    const count = pdf.numPages;
    if (count > job.maxPages) {
      return {
        ok: false,
        reason: 'too_many_pages',
        message: `The PDF has ${count} pages; at most ${job.maxPages} are read`,
      };
    }
    const texts: string[] = [];
    for (let n = 1; n <= count; n++) texts.push(job.ocr === 'force' ? '' : cleanText(await pageText(pdfjs, pdf, n)));
    const targets = ocrTargets(job, texts);
    if (targets.length > job.maxOcrPages) {
      return {
        ok: false,
        reason: 'too_many_ocr_pages',
        message: `${targets.length} pages need OCR; at most ${job.maxOcrPages} are read by OCR per document (send fewer pages, or ocr=off)`,
      };
    }
    const ocrPages: number[] = [];
    for (const n of targets) {
      try {
        texts[n - 1] = cleanText(
          await ocrPage(job.file, n, { languages: job.languages, dpi: job.dpi, memoryMb: job.toolMemoryMb }),
        );
        ocrPages.push(n);
      } catch (err) {
        if (!(err instanceof OcrUnavailableError))
          return { ok: false, reason: 'ocr_failed', message: `Page ${n} could not be read by OCR` };
        // Without poppler and tesseract, auto reads what the text layer has; force cannot do what it was asked.
        if (job.ocr === 'force')
          return { ok: false, reason: 'ocr_unavailable', message: 'OCR is not installed on this server' };
        break;
      }
    }
    return { ok: true, pages: texts, textReads: job.ocr === 'force' ? 0 : count, ocrPages };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}
