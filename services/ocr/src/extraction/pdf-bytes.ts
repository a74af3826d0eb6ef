/** What the bytes of an upload say before any parser sees them: a PDF is recognised by its bytes, never its name. */
import { open } from 'node:fs/promises';

/** The PDF header must start within the first 1024 bytes, and %%EOF end within the last 1024 (ISO 32000 7.5.2, 7.5.5). */
const WINDOW = 1024;

export interface BytesFault {
  type: 'file_empty' | 'pdf_invalid' | 'pdf_truncated';
  msg: string;
}

/** Reads at most `WINDOW` bytes at each end of the file. */
async function ends(path: string, size: number): Promise<{ head: Buffer; tail: Buffer }> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(WINDOW, size));
    await fh.read(head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(WINDOW, size));
    await fh.read(tail, 0, tail.length, size - tail.length);
    return { head, tail };
  } finally {
    await fh.close();
  }
}

/** Why the file at `path` is not a complete PDF, or undefined when its ends look like one. */
export async function pdfBytesFault(path: string, size: number): Promise<BytesFault | undefined> {
  if (size === 0) return { type: 'file_empty', msg: 'The file is empty (0 bytes)' };
  const { head, tail } = await ends(path, size);
  if (!head.includes('%PDF-'))
    return { type: 'pdf_invalid', msg: 'The file is not a PDF (no %PDF- header in its first bytes)' };
  if (!tail.includes('%%EOF'))
    return { type: 'pdf_truncated', msg: 'The PDF is truncated or damaged (it has no %%EOF end marker)' };
  return undefined;
}
