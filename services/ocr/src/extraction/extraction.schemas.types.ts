// Generated from extraction.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface ExtractQuery {
  /**
   * The caller's organization: it must be the organization of the API key (else 404 Organization not found).
   */
  organization_id: string;
  /**
   * auto: OCR the pages without a text layer; off: text layer only; force: OCR every page.
   */
  ocr: 'auto' | 'off' | 'force';
}

export interface ExtractionPath {
  extraction_id: string;
}

export interface ExtractionResult {
  /**
   * Reads the result again at GET /extract/{id}.
   */
  id: string;
  status: 'success';
  /**
   * Keyed by page number as a string ("1", "2", …).
   */
  data: {
    [pattern: string]: PageContent;
  };
  /**
   * Pages whose text layer was read plus pages run through OCR.
   */
  total_actions: number;
  page_count: number;
  /**
   * Pages read by OCR.
   */
  ocr_pages: number[];
  filename: string | null;
  created_at: string;
}

export interface PageContent {
  page: number;
  content: string;
}

export interface ReadExtractionQuery {
  /**
   * The caller's organization: it must be the organization of the API key (else 404 Organization not found).
   */
  organization_id?: string;
}
