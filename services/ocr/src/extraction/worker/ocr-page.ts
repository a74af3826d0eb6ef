/** Reads one page by OCR: poppler's pdftoppm rasterizes it, tesseract reads the image, each under a memory cap. */
import { spawn } from 'node:child_process';

export interface OcrOptions {
  languages: string;
  dpi: number;
  /** Address-space cap of each tool process, in MiB. */
  memoryMb: number;
}

/** Thrown when pdftoppm or tesseract is not installed. */
export class OcrUnavailableError extends Error {}

/** Runs `cmd` through `sh` with an address-space cap (`ulimit -v`), so a hostile page cannot take the machine's memory. */
function capped(cmd: string, args: string[], memoryMb: number) {
  return spawn('sh', ['-c', `ulimit -v ${memoryMb * 1024} && exec "$0" "$@"`, cmd, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // One thread per tesseract: the service bounds concurrency itself, and OpenMP threads fighting over two cores
    // made a page three times slower.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', OMP_THREAD_LIMIT: '1', LC_ALL: 'C' },
  });
}

const MISSING = 127;

function finished(name: string, child: ReturnType<typeof capped>, errors: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      if (errors.join('').length < 2000) errors.push(c.toString('utf8'));
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else if (code === MISSING) reject(new OcrUnavailableError(`${name} is not installed`));
      else reject(new Error(`${name} failed (${signal ?? `exit ${code}`}): ${errors.join('').trim().slice(0, 300)}`));
    });
  });
}

/** The text tesseract reads on page `n` of `file` rendered at `opts.dpi` in grey. */
export async function ocrPage(file: string, n: number, opts: OcrOptions): Promise<string> {
  const raster = capped(
    'pdftoppm',
    ['-f', String(n), '-l', String(n), '-r', String(opts.dpi), '-gray', file],
    opts.memoryMb,
  );
  const reader = capped(
    'tesseract',
    ['stdin', 'stdout', '-l', opts.languages, '--oem', '1', '-c', 'tessedit_do_invert=0'],
    opts.memoryMb,
  );
  raster.stdin.end();
  raster.stdout.pipe(reader.stdin);
  // tesseract may stop reading early (it failed): the rasterizer then gets EPIPE, which its exit status reports.
  reader.stdin.on('error', () => undefined);
  const out: Buffer[] = [];
  reader.stdout.on('data', (c: Buffer) => out.push(c));
  await Promise.all([finished('pdftoppm', raster, []), finished('tesseract', reader, [])]);
  return Buffer.concat(out).toString('utf8');
}
