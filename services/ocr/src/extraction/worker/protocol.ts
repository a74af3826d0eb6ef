/** What the service and the document process say to each other over the IPC channel. */

/** `auto`: OCR the pages without a text layer; `off`: text layer only; `force`: OCR every page. */
export const OCR_MODES = ['auto', 'off', 'force'] as const;
export type OcrMode = (typeof OCR_MODES)[number];

/** One document to read, sent to the document process. */
export interface DocumentJob {
  /** The uploaded file on local disk. */
  file: string;
  ocr: OcrMode;
  /** More pages → `too_many_pages`. */
  maxPages: number;
  /** More pages needing OCR → `too_many_ocr_pages`. */
  maxOcrPages: number;
  /** Tesseract languages, e.g. `eng+rus`. */
  languages: string;
  /** Rasterizing resolution for OCR. */
  dpi: number;
  /** Address-space cap of each pdftoppm and tesseract process, in MiB. */
  toolMemoryMb: number;
  /** Where pdfjs-dist finds its CMaps and standard font data (directories ending in `/`). */
  cMapDir: string;
  fontDir: string;
}

/** Why a document could not be read. */
export type FailureReason =
  | 'encrypted'
  | 'corrupt'
  | 'too_many_pages'
  | 'too_many_ocr_pages'
  | 'ocr_unavailable'
  | 'ocr_failed'
  | 'timeout'
  | 'memory';

/** The document process's answer: the text of every page, or why there is none. */
export type DocumentOutcome =
  | {
      ok: true;
      /** Text of page i + 1 at index i. */
      pages: string[];
      /** Pages whose text layer was read. */
      textReads: number;
      /** 1-based numbers of the pages run through OCR. */
      ocrPages: number[];
    }
  | { ok: false; reason: FailureReason; message: string };
