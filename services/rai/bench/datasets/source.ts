/**
 * Public datasets for the honest evaluation (and the training of the shipped models), read straight out of the
 * repository snapshots they come from. Nothing of them is committed: `RAI_DATASETS_DIR` names a folder holding one
 * bare git directory per repository, as `<owner>+<name>/repo` (or `<owner>+<name>` itself), and every file is read
 * at the commit pinned in SOURCES.md, so the same commit always gives the same sets.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** One labelled example of a prepared set. PII examples name the entities they hold (type and exact text). */
export interface LabelledExample {
  text: string;
  label: boolean;
  /** Which dataset (and part of it) the example came from. */
  source: string;
  /** PII only: every PII type present. */
  types?: string[];
  /** PII only: each entity present, with its exact text, so a check must remove that text to count as found. */
  entities?: { type: string; text: string }[];
}

export type Split = 'train' | 'heldout' | 'cross';
export type Family = 'prompt_injection' | 'toxicity' | 'secrets' | 'pii';

export function datasetsDir(): string {
  const dir = process.env.RAI_DATASETS_DIR;
  if (!dir) throw new Error('RAI_DATASETS_DIR is not set: see services/rai/bench/datasets/SOURCES.md');
  return resolve(dir);
}

/** The rai service's folder, from wherever this file runs (sources or compiled under dist/). */
function serviceDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('the rai service folder was not found above the datasets module');
    dir = up;
  }
  return dir;
}

/** Where the prepared sets go (not committed): `RAI_EVAL_DIR`, else `services/rai/.eval-data`. */
export function evalDir(): string {
  return resolve(process.env.RAI_EVAL_DIR ?? join(serviceDir(), '.eval-data'));
}

function gitDir(repo: string): string {
  const base = join(datasetsDir(), repo.replace('/', '+'));
  const candidate = join(base, 'repo');
  if (existsSync(candidate)) return candidate;
  if (existsSync(base)) return base;
  throw new Error(`no snapshot of ${repo} under RAI_DATASETS_DIR (expected ${repo.replace('/', '+')}/repo)`);
}

/** The text of `path` in `repo` at `commit` (a full or abbreviated hash). */
export function readSource(repo: string, commit: string, path: string): string {
  return execFileSync('git', ['--git-dir', gitDir(repo), 'show', `${commit}:${path}`], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** The bytes of `path` in `repo` at `commit` (binary files: archives, compressed data). */
export function readSourceBytes(repo: string, commit: string, path: string): Buffer {
  return execFileSync('git', ['--git-dir', gitDir(repo), 'show', `${commit}:${path}`], {
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** The files under `dir` in `repo` at `commit`. */
export function listSource(repo: string, commit: string, dir: string): string[] {
  return execFileSync('git', ['--git-dir', gitDir(repo), 'ls-tree', '-r', '--name-only', commit, dir], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\n')
    .filter(Boolean);
}

/** Writes a prepared split as JSON lines: `<evalDir>/<family>/<split>.jsonl`. */
export function writeSplit(
  family: Family,
  split: Split | 'cross2' | 'cross-purplellama' | 'cross-multilingual' | 'cross-wiki',
  examples: LabelledExample[],
): string {
  const dir = join(evalDir(), family);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${split}.jsonl`);
  writeFileSync(file, examples.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

/** Prepared splits read back (for a later split to deduplicate against them); a missing one names what to run first. */
export function readPrepared(family: Family, splits: string[], runFirst: string): LabelledExample[] {
  const out: LabelledExample[] = [];
  for (const split of splits) {
    const file = join(evalDir(), family, `${split}.jsonl`);
    if (!existsSync(file)) throw new Error(`${file} is missing: run ${runFirst} first`);
    for (const l of readFileSync(file, 'utf8').split('\n')) if (l.trim()) out.push(JSON.parse(l) as LabelledExample);
  }
  return out;
}

/** 32-bit FNV-1a of the text's UTF-16 code units: what the deterministic splits are drawn by. */
export function textHash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A deterministic split by a hash of the text: the same example always lands on the same side. */
export const inTestShare = (text: string, share: number): boolean => textHash(text) / 4294967296 < share;

/** Minimal RFC 4180 CSV reader (quoted fields, doubled quotes, newlines inside quotes). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else field += c;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows.filter((r) => r.length > 1 || r[0] !== '');
}
