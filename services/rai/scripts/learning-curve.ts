/**
 * Learning curves of the shipped linear models: how a model's quality on data it was not trained on grows with the
 * size of its training set, to tell a target more data of the same kind would reach from one it would not (issue 48).
 * Uses the prepared train split only (never heldout or cross): a dev part (15 %, by a hash of the text) is set aside,
 * the model is trained on growing shares of the rest (a fixed shuffle, so each share holds the smaller ones), and
 * scored on dev, and on whole sources left out of training when `--left-out <regular expression over the source>` is
 * given (a shift like the one between datasets; it needs both classes). With `--folds K` the dev part is each of K
 * groups in turn (by the same hash) and the figures are the mean over the K models.
 *
 *   npx ts-node --transpile-only scripts/learning-curve.ts toxicity [--left-out convabuse]
 *   npx ts-node --transpile-only scripts/learning-curve.ts prompt_injection [--left-out 'tensor-trust:extraction|m-ifeval']
 *   npx ts-node --transpile-only scripts/learning-curve.ts secrets --folds 5
 *
 * Prints, per share: training examples, the dev figures (best F1 over thresholds and ROC AUC for toxicity; recall at
 * precision ≥ 0.95 and ROC AUC for prompt injection, model alone), and the same on the left-out source.
 *
 * The secrets check is rules, not a model: its curve is that of a linear model learned from the same train split
 * (character n-grams of each line, the setup of the injection model), i.e. what learning from this much labelled
 * data reaches. Its dev part is drawn by sample file, as the heldout split is, because the lines of one CredSweeper
 * sample file are variations of each other.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { evalDir, inTestShare, textHash } from '../bench/datasets/source';
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
const LINEAR = { name: 'curve', dims: 2 ** 18, epochs: 10, l2: 1e-6, lr: 0.5, keep: 60000 };

interface FamilyCurve {
  input: (text: string) => string;
  fit: (rows: Row[]) => LinearModel;
  /** The dev figure of one model (higher is better), and its name. */
  figure: (scored: Scored[]) => number;
  figureName: string;
  /** What the dev part is drawn by (the text unless said): rows sharing a key stay on one side. */
  devKey?: (row: Row) => string;
}
const DEV_SHARE = 0.15;

const FAMILIES = {
  toxicity: {
    input: modelInput,
    fit: (rows: Row[]) => trainNbLogistic(rows, TOXICITY_TRAINING),
    figure: (s: Scored[]) => bestF1(s),
    figureName: 'F1',
  },
  prompt_injection: {
    input: (t: string) => t,
    fit: (rows: Row[]) => train(rows, LINEAR),
    figure: (s: Scored[]) => recallAtPrecision(s, 0.95),
    figureName: 'recall@P≥0.95',
  },
  secrets: {
    input: (t: string) => t,
    fit: (rows: Row[]) => train(rows, LINEAR),
    figure: (s: Scored[]) => bestF1(s),
    figureName: 'F1',
    devKey: (r: Row) => (r.source.startsWith('credsweeper:') ? r.source : r.text),
  },
} as const satisfies Record<string, FamilyCurve>;
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

interface Figures {
  figure: number;
  auc: number;
  rows: number;
}

function figures(family: Family, model: LinearModel, rows: Row[]): Figures {
  const loaded = loadModel(model);
  const scored = rows.map((r) => ({ p: probability(loaded, r.text), label: r.label }));
  return { figure: FAMILIES[family].figure(scored), auc: rocAuc(scored), rows: rows.length };
}

/** Figures averaged over folds: "F1 0.681, AUC 0.885 (185)", the count being the rows scored in all. */
function shown(family: Family, fs: Figures[]): string {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows = fs.reduce((a, f) => a + f.rows, 0);
  const figure = mean(fs.map((f) => f.figure)).toFixed(3);
  return `${FAMILIES[family].figureName} ${figure}, AUC ${mean(fs.map((f) => f.auc)).toFixed(3)} (${rows})`;
}

/** Which of `folds` groups a row falls in (a hash of its dev key); with one fold, whether it is in the dev part. */
export function foldOf(key: string, folds: number): number {
  if (folds === 1) return inTestShare(`dev:${key}`, DEV_SHARE) ? 0 : -1;
  return textHash(key) % folds;
}

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
};

if (require.main === module) {
  const family = process.argv[2] as Family;
  if (!(family in FAMILIES)) throw new Error(`family: one of ${Object.keys(FAMILIES).join(', ')}`);
  const leftOut = option('left-out');
  const folds = Number(option('folds') ?? 1);
  if (!Number.isInteger(folds) || folds < 1) throw new Error('--folds: a whole number, 1 or more');
  const rows = readFileSync(join(evalDir(), family, 'train.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row)
    .map((r) => ({ ...r, text: FAMILIES[family].input(r.text) }));
  const leftOutRe = leftOut === undefined ? undefined : new RegExp(leftOut);
  const isLeftOut = (r: Row) => leftOutRe?.test(r.source) ?? false;
  const devKey: (r: Row) => string = (FAMILIES[family] as FamilyCurve).devKey ?? ((r) => r.text);
  const kept = rows.filter((r) => !isLeftOut(r)).map((r) => ({ row: r, fold: foldOf(devKey(r), folds) }));
  const shifted = rows.filter(isLeftOut);
  const devs = Array.from({ length: folds }, (_, f) => kept.filter((k) => k.fold === f).map((k) => k.row));
  const rests = devs.map((_, f) =>
    shuffled(
      kept.filter((k) => k.fold !== f).map((k) => k.row),
      7,
    ),
  );
  process.stdout.write(`| share | trained on | dev | ${leftOut ? `left out: ${leftOut}` : ''} |\n|---|---|---|---|\n`);
  for (const share of SHARES) {
    const parts = rests.map((rest) => rest.slice(0, Math.round(rest.length * share)));
    const models = parts.map((part) => FAMILIES[family].fit(part));
    const dev = shown(
      family,
      models.map((m, f) => figures(family, m, devs[f]!)),
    );
    const shift =
      shifted.length > 0
        ? shown(
            family,
            models.map((m) => figures(family, m, shifted)),
          )
        : '';
    const trained = Math.round(parts.reduce((a, p) => a + p.length, 0) / parts.length);
    process.stdout.write(`| ${share} | ${trained} | ${dev} | ${shift} |\n`);
  }
}
