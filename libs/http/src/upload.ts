/**
 * The multipart reader of file uploads (multer on local disk): one file field `file` of at most `maxFileBytes`, and
 * no more than a few small other fields. Its failures become the API's answers: too large → 413; an unexpected
 * file field, too many parts or a malformed body → 422; the stored file is removed when the response ends.
 */
import { rm } from 'node:fs/promises';
import type { Request, RequestHandler } from 'express';
import multer, { MulterError } from 'multer';

import { PayloadTooLargeError, ValidationError } from '@platform/errors';

export interface UploadOptions {
  /** Where uploads are kept while they are read (removed after each request). */
  dir: string;
  maxFileBytes: number;
  /** Form fields beside the file (default 4). */
  maxFields?: number;
  /** Bytes of one such field (default 1 KiB). */
  maxFieldBytes?: number;
}

/** Room for the multipart framing and the small fields around the file. */
const FRAMING_BYTES = 64 * 1024;

const DEFAULT_FIELDS = 4;
const DEFAULT_FIELD_BYTES = 1024;

function limitsOf(opts: UploadOptions) {
  const fields = opts.maxFields ?? DEFAULT_FIELDS;
  return {
    files: 1,
    fields,
    parts: fields + 1,
    fieldSize: opts.maxFieldBytes ?? DEFAULT_FIELD_BYTES,
    fieldNameSize: 100,
    headerPairs: 20,
    fileSize: opts.maxFileBytes,
  };
}

function translate(err: unknown, limits: ReturnType<typeof limitsOf>): unknown {
  if (err instanceof MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') return new PayloadTooLargeError();
    if (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT') {
      return ValidationError.field(
        ['body', err.field ?? 'file'],
        'Only one file is accepted, in the field named file',
        'file_unexpected',
      );
    }
    if (err.code === 'LIMIT_FIELD_VALUE' || err.code === 'LIMIT_FIELD_KEY') {
      return ValidationError.field(
        ['body', err.field ?? 'field'],
        `Form fields other than file are at most ${limits.fieldSize} bytes`,
        'string_too_long',
      );
    }
    return ValidationError.field(
      ['body'],
      `Too many form parts: one file and at most ${limits.fields} small fields`,
      'too_many_parts',
    );
  }
  // System errors (the disk) carry an errno code and stay 5xx; what busboy throws is about the body's framing.
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).code !== 'string') {
    return ValidationError.field(['body'], 'The multipart/form-data body is malformed', 'multipart_invalid');
  }
  return err;
}

/** Reads the upload into `req.file`; a declared length far above the limit is refused before any byte is read. */
export function uploadMiddleware(opts: UploadOptions): RequestHandler {
  const limits = limitsOf(opts);
  const single = multer({ dest: opts.dir, limits }).single('file');
  const maxBody = opts.maxFileBytes + FRAMING_BYTES + limits.fields * limits.fieldSize;
  return (req, res, next) => {
    if (Number(req.headers['content-length'] ?? 0) > maxBody) {
      res.set('Connection', 'close');
      req.resume();
      throw new PayloadTooLargeError();
    }
    res.once('close', () => {
      // multer removes what it stored itself when it fails; a file it handed over is ours to remove
      const path = req.file?.path;
      if (typeof path === 'string') void rm(path, { force: true }).catch(() => undefined);
    });
    single(req, res, (err?: unknown) => next(err === undefined ? undefined : translate(err, limits)));
  };
}

/** A stored upload: where it is, its size and its (cleaned) file name. */
export interface UploadedFile {
  path: string;
  size: number;
  filename: string | null;
}

/**
 * The upload `uploadMiddleware` stored for the request, or 422 `missing` at ["body", "file"] (`what` names the
 * expected file, e.g. "a PDF"). Read here so that no service depends on multer's types.
 */
export function uploadedFile(req: Request, what = 'a file'): UploadedFile {
  const file = (req as Request & { file?: Express.Multer.File }).file;
  if (!file)
    throw ValidationError.field(['body', 'file'], `Field required: ${what} in the form field named file`, 'missing');
  // eslint-disable-next-line no-control-regex -- control characters have no place in a stored file name
  const name = file.originalname.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255);
  return { path: file.path, size: file.size, filename: name.length > 0 ? name : null };
}
