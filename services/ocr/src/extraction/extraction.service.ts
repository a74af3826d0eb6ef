import { NotFoundError, ServiceUnavailableError, ValidationError } from '@platform/errors';

import type { DocumentLimiter } from './document-limiter';
import type { DocumentRunner } from './document-runner';
import type { ExtractionRepository } from './extraction.repository';
import type { ExtractionRecord, ExtractionResult, OcrMode, Owner, Upload } from './extraction.types';
import { pdfBytesFault } from './pdf-bytes';
import type { FailureReason } from './worker/protocol';

export interface ExtractionLimits {
  /** More pages → 422 (at most 500). */
  maxPages: number;
  /** More pages needing OCR in one document → 422. */
  maxOcrPages: number;
  /** Tesseract languages, e.g. `eng+rus`. */
  languages: string;
  dpi: number;
}

export interface ExtractionServiceDeps {
  repo: ExtractionRepository;
  runner: DocumentRunner;
  limiter: DocumentLimiter;
  limits: ExtractionLimits;
  clock: () => Date;
}

/** Most text one result stores: far above any real document, well below a stored document's size limit. */
export const MAX_TEXT_BYTES = 12 * 1024 * 1024;

const FAILURE_TYPES: Record<Exclude<FailureReason, 'ocr_unavailable'>, string> = {
  encrypted: 'pdf_encrypted',
  corrupt: 'pdf_invalid',
  too_many_pages: 'pdf_too_many_pages',
  too_many_ocr_pages: 'pdf_too_many_ocr_pages',
  ocr_failed: 'pdf_ocr_failed',
  timeout: 'pdf_time_limit',
  memory: 'pdf_memory_limit',
};

const fileError = (msg: string, type: string) => ValidationError.field(['body', 'file'], msg, type);

export function toResult(r: ExtractionRecord): ExtractionResult {
  return {
    id: r.id,
    status: 'success',
    data: Object.fromEntries(r.pages.map((content, i) => [String(i + 1), { page: i + 1, content }])),
    total_actions: r.total_actions,
    page_count: r.pages.length,
    ocr_pages: r.ocr_pages,
    filename: r.filename,
    created_at: r.created_at,
  };
}

/** Text extraction from uploaded PDFs, each read in its own bounded process; results stored per organization. */
export function createExtractionService(deps: ExtractionServiceDeps) {
  const orgCheck = (owner: Owner, organizationId: string | undefined) => {
    if (organizationId !== undefined && organizationId !== owner.org_id) throw new NotFoundError('Organization');
  };
  return {
    /** 404 `Organization not found` unless the key belongs to `organizationId`. */
    checkOrganization: orgCheck,

    async extract(owner: Owner, organizationId: string, ocr: OcrMode, upload: Upload): Promise<ExtractionResult> {
      orgCheck(owner, organizationId);
      const fault = await pdfBytesFault(upload.path, upload.size);
      if (fault) throw fileError(fault.msg, fault.type);
      const { maxPages, maxOcrPages, languages, dpi } = deps.limits;
      const outcome = await deps.limiter.run(() =>
        deps.runner.run({ file: upload.path, ocr, maxPages, maxOcrPages, languages, dpi }),
      );
      if (!outcome.ok) {
        if (outcome.reason === 'ocr_unavailable') throw new ServiceUnavailableError(undefined, outcome.message);
        throw fileError(outcome.message, FAILURE_TYPES[outcome.reason]);
      }
      const bytes = outcome.pages.reduce((n, p) => n + Buffer.byteLength(p), 0);
      if (bytes > MAX_TEXT_BYTES)
        throw fileError(`The PDF's text is larger than ${MAX_TEXT_BYTES / 1024 / 1024} MiB`, 'pdf_text_too_large');
      const record = await deps.repo.create(
        {
          user_id: owner.user_id,
          org_id: owner.org_id,
          filename: upload.filename,
          size_bytes: upload.size,
          ocr_mode: ocr,
          pages: outcome.pages,
          ocr_pages: outcome.ocrPages,
          total_actions: outcome.textReads + outcome.ocrPages.length,
        },
        deps.clock(),
      );
      return toResult(record);
    },

    async get(owner: Owner, id: string, organizationId?: string): Promise<ExtractionResult> {
      orgCheck(owner, organizationId);
      const record = await deps.repo.get(owner.org_id, id);
      if (!record) throw new NotFoundError('Extraction');
      return toResult(record);
    },
  };
}

export type ExtractionService = ReturnType<typeof createExtractionService>;
