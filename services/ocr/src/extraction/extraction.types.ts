import type { OcrMode } from './worker/protocol';

export type { OcrMode };
export type { ExtractionResult, PageContent } from './extraction.schemas.types';

/** Who asks: the API key's owner. Results belong to the organization. */
export interface Owner {
  user_id: string;
  org_id: string;
}

/** The uploaded file as multer stored it. */
export interface Upload {
  path: string;
  size: number;
  filename: string | null;
}

/** A stored extraction. */
export interface ExtractionRecord {
  id: string;
  user_id: string;
  org_id: string;
  filename: string | null;
  size_bytes: number;
  ocr_mode: OcrMode;
  /** Text of page i + 1 at index i. */
  pages: string[];
  ocr_pages: number[];
  total_actions: number;
  created_at: string;
}
