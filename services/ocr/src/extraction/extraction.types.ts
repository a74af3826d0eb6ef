import type { OcrMode } from './worker/protocol';

export type { OcrMode };

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

export interface PageContent {
  page: number;
  content: string;
}

/** The extraction result of the spec (status, data, total_actions), with the id to read it again and a few facts. */
export interface ExtractionResult {
  id: string;
  status: 'success';
  data: Record<string, PageContent>;
  total_actions: number;
  page_count: number;
  ocr_pages: number[];
  filename: string | null;
  created_at: string;
}
