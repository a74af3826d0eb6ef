/**
 * Scores a prepared public split (see SOURCES.md) with the service's own `evaluate`, one family enabled at the
 * contract's default thresholds: precision, recall, F1 and the p50/p99 latency of one evaluation of a 2 KB text (1,000 texts per split, each timed 3 times).
 *
 *   npx ts-node --transpile-only bench/datasets/score.ts <family> <split>    (RAI_EVAL_ERRORS=1 lists the misses)
 *
 * PII is scored per entity and type: an entity is found only when its type is reported and its text is gone from the
 * redacted output; a reported type the example does not hold is a false positive.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { escapeRegExp } from '../../src/checks/terms';
import { evaluate } from '../../src/inference/evaluate';
import { policyFor, twoKb } from '../eval-metrics';
import { evalDir, type Family, type LabelledExample, type Split } from './source';

export interface Figures {
  examples: number;
  positives: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface SplitReport extends Figures {
  family: Family;
  split: Split;
  p50_ms: number;
  p99_ms: number;
  /** PII only: figures per type. */
  perType?: Record<string, Figures>;
  errors: { text: string; expected: string[]; found: string[] }[];
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const figures = (examples: number, positives: number, tp: number, fp: number, fn: number): Figures => {
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { examples, positives, precision: round(precision), recall: round(recall), f1: round(f1) };
};
const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export function readSplit(family: Family, split: Split): LabelledExample[] | undefined {
  const file = join(evalDir(), family, `${split}.jsonl`);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LabelledExample);
}

const TIMING_REPEATS = 3;
/** Texts timed per split: every k-th example up to this many, each timed TIMING_REPEATS times. */
export const TIMED_EXAMPLES = 1000;

/** Every k-th example, at most `n` of them: the same sample on every run. */
export const evenSample = <T>(xs: T[], n: number): T[] =>
  xs.length <= n ? xs : Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]!);

/**
 * Whether `phrase` is still in `text` as a whole word or phrase: "Syria" redacted from "in Syria, Syrian forces" is
 * gone although "Syrian" holds its letters.
 */
export function containsWord(text: string, phrase: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(phrase)}(?![\\p{L}\\p{N}])`, 'u').test(text);
}

export function scoreSplit(family: Family, split: Split, examples: LabelledExample[], timing = true): SplitReport {
  const rules = policyFor(family);
  const errors: SplitReport['errors'] = [];
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const perType = new Map<string, { n: number; tp: number; fp: number; fn: number }>();
  const typeRow = (t: string) => perType.get(t) ?? (perType.set(t, { n: 0, tp: 0, fp: 0, fn: 0 }), perType.get(t)!);
  for (const e of examples) {
    const result = evaluate(rules, e.text);
    if (family !== 'pii') {
      const fired = result.violations.length > 0;
      if (fired && e.label) tp++;
      else if (fired) fp++;
      else if (e.label) fn++;
      if (fired !== e.label)
        errors.push({ text: e.text, expected: e.label ? [family] : [], found: fired ? [family] : [] });
      continue;
    }
    const reported = new Set(result.violations.filter((v) => v.check === 'pii').map((v) => v.detail.split(' ')[0]!));
    const expectedTypes = new Set(e.entities?.map((x) => x.type) ?? e.types ?? []);
    const missed: string[] = [];
    for (const entity of e.entities ?? []) {
      const row = typeRow(entity.type);
      row.n++;
      if (reported.has(entity.type) && !containsWord(result.text, entity.text)) {
        row.tp++;
        tp++;
      } else {
        row.fn++;
        fn++;
        missed.push(`${entity.type}:${entity.text}`);
      }
    }
    const extra = [...reported].filter((t) => !expectedTypes.has(t));
    for (const t of extra) {
      typeRow(t).fp++;
      fp++;
    }
    if (missed.length > 0 || extra.length > 0) errors.push({ text: e.text, expected: missed, found: extra });
  }
  const times: number[] = [];
  if (timing) {
    const timed = evenSample(examples, TIMED_EXAMPLES);
    for (let rep = 0; rep < TIMING_REPEATS; rep++)
      for (const e of timed) {
        const text = twoKb(e.text).slice(0, 2048);
        const started = process.hrtime.bigint();
        evaluate(rules, text);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    times.sort((a, b) => a - b);
  }
  const positives = examples.filter((e) => e.label).length;
  return {
    family,
    split,
    ...figures(examples.length, positives, tp, fp, fn),
    p50_ms: round(percentile(times, 50)),
    p99_ms: round(percentile(times, 99)),
    ...(family === 'pii'
      ? {
          perType: Object.fromEntries([...perType].sort().map(([t, r]) => [t, figures(r.n, r.n, r.tp, r.fp, r.fn)])),
        }
      : {}),
    errors,
  };
}

if (require.main === module) {
  const [family, split] = process.argv.slice(2) as [Family, Split];
  const examples = readSplit(family, split);
  if (!examples) throw new Error(`no prepared split ${family}/${split} under ${evalDir()}`);
  // Warm-up pass so module-level tables and the JIT are ready before the timed pass.
  scoreSplit(family, split, examples.slice(0, 50), false);
  const r = scoreSplit(family, split, examples);
  const { errors, ...figs } = r;
  process.stdout.write(`${JSON.stringify(figs, null, 1)}\n`);
  if (process.env.RAI_EVAL_ERRORS) for (const e of errors) process.stdout.write(`${JSON.stringify(e)}\n`);
}
