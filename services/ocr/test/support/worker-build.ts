/**
 * The document process is a separate Node process, which jest's TypeScript transform does not reach: tests compile
 * the worker's sources with SWC (as jest does) into a private folder under this package's node_modules, so that
 * `pdfjs-dist` resolves from there exactly as it does from dist/.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { transformFileSync } from '@swc/core';

const SRC = resolve(__dirname, '../../src/extraction/worker');
let built: string | undefined;

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Builds of test processes that ended without their exit handler (jest may kill its workers). */
function removeStale(cache: string): void {
  const dirs = readdirSync(cache, { withFileTypes: true }).filter(
    (d) => d.isDirectory() && /^ocr-worker-\d+$/.test(d.name),
  );
  for (const d of dirs)
    if (!isAlive(Number(d.name.slice('ocr-worker-'.length))))
      rmSync(join(cache, d.name), { recursive: true, force: true });
}

/** Compiles src/extraction/worker once per test process; returns the path of document.worker.js. */
export function workerScript(): string {
  if (built) return built;
  const cache = resolve(__dirname, '../../node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  removeStale(cache);
  const out = join(cache, `ocr-worker-${process.pid}`);
  mkdirSync(out, { recursive: true });
  // Processes started from these files have loaded them already: the folder can go with this test process.
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  for (const file of readdirSync(SRC).filter((f) => f.endsWith('.ts'))) {
    const { code } = transformFileSync(join(SRC, file), {
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
      module: { type: 'commonjs', ignoreDynamic: true },
    });
    writeFileSync(join(out, file.replace(/\.ts$/, '.js')), code);
  }
  built = join(out, 'document.worker.js');
  return built;
}
