/**
 * The text of an uploaded file, recognised by its bytes, never its name: PDF through the OCR service, DOCX by
 * mammoth, TXT as UTF-8. Not that kind of file → 415; a file of that kind that cannot be read, or holds no text → 422
 * naming the file.
 */
import { readFile } from 'node:fs/promises';
import mammoth from 'mammoth';

import { AppError, ValidationError } from '@platform/errors';
import { stringFault, type UploadedFile } from '@platform/http';

import type { FileKind, Owner } from './knowledge.types';
import type { OcrClient } from './ocr.client';

/** Most bytes a DOCX may unpack to (its parts, as its zip directory states them): a zip bomb is refused unread. */
export const MAX_DOCX_UNPACKED_BYTES = 200 * 1024 * 1024;

const PDF_HEADER_WINDOW = 1024;
const ZIP_LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

const fileError = (msg: string, type: string) => ValidationError.field(['body', 'file'], msg, type);
const notKind = (what: string) => new AppError(415, `The file is not ${what}`);

/** Bytes the zip's central directory says its entries unpack to; null when there is no readable directory. */
export function zipUnpackedBytes(zip: Buffer): number | null {
  const from = Math.max(0, zip.length - 65_557);
  let eocd = -1;
  for (let i = zip.length - 22; i >= from; i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  let total = 0;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) return null;
    const size = zip.readUInt32LE(at + 24);
    if (size === 0xffffffff) return Number.POSITIVE_INFINITY; // zip64: far beyond any document here
    total += size;
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return total;
}

async function pdfText(ocr: OcrClient, owner: Owner, bytes: Buffer, name: string): Promise<string> {
  if (!bytes.subarray(0, PDF_HEADER_WINDOW).includes('%PDF-')) throw notKind('a PDF');
  const pages = await ocr.pdfPages(owner, bytes, name);
  return pages.join('\n\n');
}

async function docxText(bytes: Buffer, name: string): Promise<string> {
  if (!bytes.subarray(0, 4).equals(ZIP_LOCAL_HEADER)) throw notKind('a DOCX document');
  const unpacked = zipUnpackedBytes(bytes);
  if (unpacked === null) throw fileError(`${name} is not a readable DOCX document`, 'docx_invalid');
  if (unpacked > MAX_DOCX_UNPACKED_BYTES)
    throw fileError(`${name} unpacks to more than ${MAX_DOCX_UNPACKED_BYTES / 1024 / 1024} MiB`, 'docx_too_large');
  try {
    return (await mammoth.extractRawText({ buffer: bytes })).value;
  } catch {
    throw fileError(`${name} is not a readable DOCX document`, 'docx_invalid');
  }
}

function txtText(bytes: Buffer, name: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw notKind('UTF-8 text');
  }
  if (stringFault(text)) throw fileError(`${name} contains the character U+0000`, 'string_nul');
  return text;
}

/** Control characters other than tab and line breaks, as extractors sometimes leave them. */
// eslint-disable-next-line no-control-regex -- the point is to find them
const STRAY_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

/** Reads the uploaded file as `kind`; 422 when it holds no text. */
export async function extractText(
  deps: { ocr: OcrClient },
  owner: Owner,
  kind: FileKind,
  upload: UploadedFile,
): Promise<{ text: string; name: string }> {
  const name = upload.filename ?? `the ${kind.toUpperCase()} file`;
  if (upload.size === 0) throw fileError(`${name} is empty (0 bytes)`, 'file_empty');
  const bytes = await readFile(upload.path);
  const raw =
    kind === 'pdf'
      ? await pdfText(deps.ocr, owner, bytes, name)
      : kind === 'docx'
        ? await docxText(bytes, name)
        : txtText(bytes, name);
  const text = kind === 'txt' ? raw : raw.replace(STRAY_CONTROLS, ' ');
  if (text.trim().length === 0) throw fileError(`No text could be read from ${name}`, 'file_no_text');
  return { text, name };
}
