import { randomBytes } from 'node:crypto';

import { AppError, PayloadTooLargeError, ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';
import { createServiceClient, operationCall, siblingOperation, type ServiceTarget } from '@platform/service-client';

import { ocrExtraction } from './clients.schemas';
import type { Owner } from './knowledge.types';
import { fieldErrorsOf } from './refusals';

/** The ocr service's extraction of a PDF's text. */
const OCR_EXTRACT = siblingOperation({ service: 'ocr', method: 'POST', path: '/extract', response: ocrExtraction });

/** The OCR service, which reads the text of PDFs, and how rag reaches it. */
export type OcrServiceTarget = ServiceTarget;

/** A multipart/form-data body of one file field named `file`. */
function multipartOf(file: Buffer, filename: string, type: string): { body: Buffer; contentType: string } {
  const boundary = `----knowledge${randomBytes(12).toString('hex')}`;
  const safeName = filename.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, file, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * PDF text through the OCR service's extraction (synchronous: its answer holds every page), on behalf of the owner
 * and in the owner's organization. Down or busy → 503; its 422 (encrypted, corrupt, too many pages) is passed on with
 * its detail; its 413 likewise.
 */
export function createOcrClient(deps: { outbound: OutboundClient; target: OcrServiceTarget; logger: Logger }) {
  const ocr = createServiceClient({ ...deps, name: 'OCR service' });
  return {
    /** The text of each page, in order. */
    async pdfPages(owner: Owner, file: Buffer, filename: string): Promise<string[]> {
      const { body, contentType } = multipartOf(file, filename, 'application/pdf');
      const result = await ocr.call({
        what: 'a PDF extraction',
        ...operationCall(OCR_EXTRACT),
        query: { organization_id: owner.org_id },
        owner,
        body,
        contentType,
        on: {
          413: () => {
            throw new PayloadTooLargeError();
          },
          415: () => {
            throw new AppError(415, 'The file is not a PDF');
          },
          422: (answer) => {
            throw new ValidationError(
              fieldErrorsOf(answer, { loc: ['body', 'file'], msg: 'The PDF could not be read', type: 'pdf_invalid' }),
            );
          },
        },
        maxResponseBytes: 16 * 1024 * 1024,
      });
      return Object.values(result.data)
        .sort((a, b) => a.page - b.page)
        .map((p) => p.content);
    },
  };
}

export type OcrClient = ReturnType<typeof createOcrClient>;
