/**
 * The OCR service as a real process (services/ocr/dist/main.js): text PDFs (pages/s, one document at a time and two
 * at once) and 300-dpi scanned pages (s/page, words recognised), with the peak resident memory of each document's
 * processes (the document process plus pdftoppm and tesseract) and of the service itself.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { createTestDatabases, startServiceProcess, testInfra, uniqueName } from '@platform/testing';

import { scanOf } from '../../services/ocr/test/support/scan-fixtures';
import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { peakOfDocumentProcess, rssMb } from './process-memory';

const TEXT_PAGES = Number(process.env.BENCH_OCR_TEXT_PAGES ?? 200);
const RUNS = Number(process.env.BENCH_OCR_RUNS ?? 3);
const DPI = Number(process.env.BENCH_OCR_DPI ?? 300);
const ROOT = resolve(__dirname, '../../../..'); // from bench/dist/bench/ocr
const out = (line: string) => process.stdout.write(`${line}\n`);
const LETTER: [number, number] = [612, 792];

const LINE = 'The committee reviewed the annual budget and approved funding for new equipment';
const pageLines = (p: number) => Array.from({ length: 40 }, (_, i) => `${LINE} (page ${p}, line ${i + 1})`);

interface Answer {
  seconds: number;
  peakMb: number;
  text: string[];
}

async function extract(url: string, pid: number, key: string, pdf: Uint8Array): Promise<Answer> {
  const form = new FormData();
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'bench.pdf');
  const sampler = peakOfDocumentProcess(pid);
  const t = performance.now();
  const res = await fetch(`${url}/extract?organization_id=bench-org`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  const body = (await res.json()) as { data?: Record<string, { content: string }> };
  const seconds = (performance.now() - t) / 1000;
  const peakMb = sampler.stop();
  if (res.status !== 200 || !body.data)
    throw new Error(`extract answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return { seconds, peakMb, text: Object.values(body.data).map((p) => p.content) };
}

/** pdftoppm piped into tesseract with the service's options, timed: the OCR engine's own share of a page. */
function byHand(pdf: Uint8Array, dir: string): number {
  const file = join(dir, 'by-hand.pdf');
  writeFileSync(file, pdf);
  const t = performance.now();
  execSync(
    `pdftoppm -f 1 -l 1 -r ${DPI} -gray ${file} | tesseract stdin stdout -l eng --oem 1 -c tessedit_do_invert=0`,
    {
      env: { ...process.env, OMP_THREAD_LIMIT: '1' },
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  return (performance.now() - t) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const f = (n: number, d = 1) => n.toFixed(d);

async function main(): Promise<void> {
  const dbs = await createTestDatabases('bench_ocr');
  const uploadDir = mkdtempSync(join(tmpdir(), 'bench-ocr-'));
  const svc = await startServiceProcess({
    script: resolve(ROOT, 'services/ocr/dist/main.js'),
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: uniqueName('bench_ocr_svc'),
      AUTH_DB: dbs.authDb,
      UPLOAD_DIR: uploadDir,
      OCR_DPI: String(DPI),
      LOG_LEVEL: 'warn',
    },
  });
  const pid = svc.child.pid!;
  try {
    const key = await dbs.mintKey({ user_id: 'bench', org_id: 'bench-org' });
    const text = await textPdf(Array.from({ length: TEXT_PAGES }, (_, i) => pageLines(i + 1)));
    await extract(svc.url, pid, key, await textPdf([['warm-up']]));
    const seq = [];
    for (let i = 0; i < RUNS; i++) seq.push(await extract(svc.url, pid, key, text));
    const t = performance.now();
    await Promise.all([extract(svc.url, pid, key, text), extract(svc.url, pid, key, text)]);
    const pairSeconds = (performance.now() - t) / 1000;
    const okPages = seq[0]!.text.filter((c, i) => c.includes(`(page ${i + 1}, line 40)`)).length;
    out(`text PDF, ${TEXT_PAGES} pages × 40 lines (${f(text.length / 1024, 0)} KiB), ${RUNS} runs one at a time:`);
    out(
      `  ${f(TEXT_PAGES / median(seq.map((s) => s.seconds)))} pages/s (median ${f(median(seq.map((s) => s.seconds)), 2)} s per document), pages read in full: ${okPages}/${TEXT_PAGES}`,
    );
    out(`  two documents at once: ${f((2 * TEXT_PAGES) / pairSeconds)} pages/s together`);
    out(`  peak memory of a document's process: ${f(Math.max(...seq.map((s) => s.peakMb)), 0)} MiB`);

    const page = await textPdf([pageLines(1).slice(0, 30)], LETTER);
    const scan = await scanOf(page, DPI, LETTER);
    const scans = [];
    for (let i = 0; i < RUNS; i++) scans.push(await extract(svc.url, pid, key, scan));
    const words = pageLines(1).slice(0, 30).join(' ').split(/\s+/);
    const read = new Set(scans[0]!.text[0]!.split(/\s+/));
    out(`scanned letter page at ${DPI} dpi (30 lines, ${f(scan.length / 1024, 0)} KiB), ${RUNS} runs:`);
    out(
      `  ${f(median(scans.map((s) => s.seconds)), 2)} s per page (median; min ${f(Math.min(...scans.map((s) => s.seconds)), 2)} s), words recognised ${words.filter((w) => read.has(w)).length}/${words.length}`,
    );
    out(
      `  peak memory of a document's processes (node + pdftoppm + tesseract): ${f(Math.max(...scans.map((s) => s.peakMb)), 0)} MiB`,
    );
    out(`  the same page by hand (pdftoppm | tesseract, no service): ${f(byHand(scan, uploadDir), 2)} s`);
    out(`service process resident memory at the end: ${f(rssMb(pid), 0)} MiB`);
  } finally {
    await svc.stop();
    await dbs.cleanup();
    rmSync(uploadDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
