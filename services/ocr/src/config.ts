import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { commonEnv, Joi, type CommonConfig } from '@platform/config';

/** Tesseract language codes joined with `+` (its own syntax), e.g. `eng` or `eng+rus+chi_sim`. */
const LANGUAGES = /^[a-z][a-z0-9_]{1,31}(\+[a-z][a-z0-9_]{1,31}){0,7}$/i;

/** Every environment variable the OCR service reads. */
export const configSchema = Joi.object<OcrServiceConfig>({
  PORT: Joi.number().port().default(3007).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('ocr').description("The OCR service's own database (extraction results)."),
  OCR_LANGUAGES: Joi.string()
    .pattern(LANGUAGES)
    .default('eng')
    .description(
      'Tesseract languages for scanned pages, joined with + (e.g. eng+rus); each needs its tesseract-ocr-<lang> package.',
    ),
  OCR_DPI: Joi.number()
    .integer()
    .min(72)
    .max(600)
    .default(300)
    .description('Resolution at which pages without a text layer are rasterized for OCR.'),
  MAX_CONCURRENT_DOCUMENTS: Joi.number()
    .integer()
    .min(1)
    .max(64)
    .default(2)
    .description(
      'Documents parsed or OCR-read at once by one process (each in its own child process); about one per core.',
    ),
  MAX_QUEUED_DOCUMENTS: Joi.number()
    .integer()
    .min(0)
    .max(1000)
    .default(16)
    .description('Documents that may wait for a free slot; more → 503 at once.'),
  QUEUE_WAIT_MS: Joi.number()
    .integer()
    .min(0)
    .max(60000)
    .default(10000)
    .description('How long a document waits for a free slot before the request answers 503 with Retry-After.'),
  DOCUMENT_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(900000)
    .default(120000)
    .description('Time limit of one document (parse and OCR); past it the work is killed and the request answers 422.'),
  DOCUMENT_MEMORY_MB: Joi.number()
    .integer()
    .min(64)
    .max(16384)
    .default(512)
    .description(
      'Memory limit of the process reading one document, and of each rasterizer and OCR process it starts; past it → 422.',
    ),
  MAX_OCR_PAGES: Joi.number()
    .integer()
    .min(1)
    .max(500)
    .default(50)
    .description(
      'Most pages of one document run through OCR; a document needing more → 422 (split it, or send it with ocr=off).',
    ),
  UPLOAD_DIR: Joi.string()
    .default(join(tmpdir(), 'ocr-uploads'))
    .description('Where uploads are kept while they are read; each is removed when its request ends.'),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .allow('')
    .min(32)
    .description(
      "Shared secret (32+ chars, the rag service's) with which the rag service extracts PDFs on behalf of an owner. Unset: only API keys are accepted.",
    ),
  ...commonEnv,
});

export interface OcrServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  OCR_LANGUAGES: string;
  OCR_DPI: number;
  MAX_CONCURRENT_DOCUMENTS: number;
  MAX_QUEUED_DOCUMENTS: number;
  QUEUE_WAIT_MS: number;
  DOCUMENT_TIMEOUT_MS: number;
  DOCUMENT_MEMORY_MB: number;
  MAX_OCR_PAGES: number;
  UPLOAD_DIR: string;
  INTERNAL_SERVICE_SECRET?: string;
}
