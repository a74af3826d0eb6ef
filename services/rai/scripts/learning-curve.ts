/**
 * Learning curves of the shipped linear models: how a model's quality on data it was not trained on grows with the
 * size of its training set, to tell a target more data of the same kind would reach from one it would not (issue 48).
 * Uses the prepared train split only (never heldout or cross): a dev part (15 %, by a hash of the text) is set aside,
 * the model is trained on growing shares of the rest (a fixed shuffle, so each share holds the smaller ones), and
 * scored on dev, and on whole sources left out of training when `--left-out <regular expression over the source>` is
 * given (a shift like the one between datasets; it needs both classes).
 *
 *   npx ts-node --transpile-only scripts/learning-curve.ts toxicity [--left-out convabuse]
 *   npx ts-node --transpile-only scripts/learning-curve.ts prompt_injection [--left-out 'tensor-trust:extraction|m-ifeval']
 *
 * Prints, per share: training examples, the dev figures (best F1 over thresholds and ROC AUC for toxicity; recall at
 * precision ≥ 0.95 and ROC AUC for prompt injection, model alone), and the same on the left-out source.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { evalDir, inTestShare } from '../bench/datasets/source';
import { seeded } from '../bench/eval-kit';
import { loadModel, probability, type LinearModel } from '../src/checks/linear-model';
import { modelInput } from '../src/checks/toxicity/expletives';
import { train } from './train-linear';
import { TOXICITY_TRAINING, trainNbLogistic } from './train-toxicity';

interface Row {
  text: string;
  label: boolean;
  source: string;
}
interface Scored {
  p: number;
  label: boolean;
}

const SHARES = [0.1, 0.2, 0.4, 0.7, 1];
const DEV_SHARE = 0.15;

const FAMILIES = {
  toxicity: {
    input: modelInput,
    fit: (rows: Row[]) => trainNbLogistic(rows, TOXICITY_TRAINING),
    figure: (s: Scored[]) => `F1 ${bestF1(s).toFixed(3)}`,
  },
  prompt_injection: {
    input: (t: string) => t,
    fit: (rows: Row[]) => train(rows, { name: 'curve', dims: 2 ** 18, epochs: 10, l2: 1e-6, lr: 0.5, keep: 60000 }),
    figure: (s: Scored[]) => `recall@P≥0.95 ${recallAtPrecision(s, 0.95).toFixed(3)}`,
  },
} as const;
type Family = keyof typeof FAMILIES;

/** Every cut of the ranking (highest scores first): how many fired, how many of them are positive, of how many. */
function cuts(scored: Scored[]): { fired: number; tp: number; positives: number }[] {
  const positives = scored.filter((s) => s.label).length;
  let tp = 0;
  return [...scored]
    .sort((a, b) => b.p - a.p)
    .map((s, i) => ({ fired: i + 1, tp: (tp += s.label ? 1 : 0), positives }));
}

/** The best F1 over every threshold. */
export const bestF1 = (scored: Scored[]): number =>
  Math.max(0, ...cuts(scored).map((c) => (2 * c.tp) / (c.fired + c.positives)));

/** The highest recall at which precision is still at least `target` (scores above a threshold fire). */
export const recallAtPrecision = (scored: Scored[], target: number): number =>
  Math.max(0, ...cuts(scored).map((c) => (c.tp / c.fired >= target ? c.tp / c.positives : 0)));

/** ROC AUC: the chance a random positive scores above a random negative (ties count half). */
export function rocAuc(scored: Scored[]): number {
  const sorted = [...scored].sort((a, b) => a.p - b.p);
  let rankSum = 0;
  let positives = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]!.p === sorted[i]!.p) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) {
      if (!sorted[k]!.label) continue;
      rankSum += rank;
      positives++;
    }
    i = j;
  }
  const negatives = sorted.length - positives;
  if (positives === 0 || negatives === 0) throw new Error('ROC AUC needs both classes');
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  const rand = seeded(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function figures(family: Family, model: LinearModel, rows: Row[]): string {
  const loaded = loadModel(model);
  const scored = rows.map((r) => ({ p: probability(loaded, r.text), label: r.label }));
  return `${FAMILIES[family].figure(scored)}, AUC ${rocAuc(scored).toFixed(3)} (${rows.length})`;
}

if (require.main === module) {
  const family = process.argv[2] as Family;
  if (!(family in FAMILIES)) throw new Error(`family: one of ${Object.keys(FAMILIES).join(', ')}`);
  const leftOutAt = process.argv.indexOf('--left-out');
  const leftOut = leftOutAt > 0 ? process.argv[leftOutAt + 1] : undefined;
  const rows = readFileSync(join(evalDir(), family, 'train.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row)
    .map((r) => ({ ...r, text: FAMILIES[family].input(r.text) }));
  const leftOutRe = leftOut === undefined ? undefined : new RegExp(leftOut);
  const isLeftOut = (r: Row) => leftOutRe?.test(r.source) ?? false;
  const dev = rows.filter((r) => !isLeftOut(r) && inTestShare(`dev:${r.text}`, DEV_SHARE));
  const rest = shuffled(
    rows.filter((r) => !isLeftOut(r) && !inTestShare(`dev:${r.text}`, DEV_SHARE)),
    7,
  );
  const shifted = rows.filter(isLeftOut);
  process.stdout.write(`| share | trained on | dev | ${leftOut ? `left out: ${leftOut}` : ''} |\n|---|---|---|---|\n`);
  for (const share of SHARES) {
    const part = rest.slice(0, Math.round(rest.length * share));
    const model = FAMILIES[family].fit(part);
    const shift = shifted.length > 0 ? figures(family, model, shifted) : '';
    process.stdout.write(`| ${share} | ${part.length} | ${figures(family, model, dev)} | ${shift} |\n`);
  }
}
