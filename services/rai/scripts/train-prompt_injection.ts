/**
 * Reproduces the committed prompt-injection model (src/checks/models/prompt_injection.json) byte for byte:
 *
 *   RAI_DATASETS_DIR=<folder of snapshots> npx ts-node --transpile-only scripts/train-prompt_injection.ts
 *
 * 1. Prepares the splits (bench/datasets/prompt_injection.ts) and trains on the train split only.
 * 2. Calibrates on the train split alone: out-of-fold probabilities over three folds of whole sources (each fold
 *    scored by a model trained on the other two), then the lowest probability at which the check (rules or model)
 *    keeps precision ≥ 0.95 on them. The check maps that probability to the contract's default threshold.
 * 3. Trains the final model on the whole train split and writes it with its calibration.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { prepare } from '../bench/datasets/prompt_injection';
import { writeSplit, type LabelledExample } from '../bench/datasets/source';
import { ruleScore } from '../src/checks/injection.check';
import { windowedProbabilityFast } from '../src/checks/injection/fast-model';
import { setAsideQuoted } from '../src/checks/injection/views';
import { loadModel } from '../src/checks/linear-model';
import { train } from './train-linear';

const OPTS = { name: 'prompt_injection', dims: 2 ** 18, epochs: 10, l2: 1e-6, lr: 0.5, keep: 60000 };
const TARGET_PRECISION = 0.95;
const RULE_THRESHOLD = 0.3;

/**
 * Calibration folds by source, not at random: each fold holds out whole datasets (attacks and benign prompts of a
 * different kind), so the out-of-fold probabilities show how the model does on text unlike its training data (as
 * real traffic is), not on near-copies of it. Random folds give a far too low threshold (precision 0.97 out of fold,
 * under 0.75 on a new source).
 */
const FOLD_OF_SOURCE: [RegExp, number][] = [
  [/tensor-trust:hijacking|self-instruct:t0|gsm8k/, 0],
  [/tensor-trust:extraction|m-ifeval/, 1],
  [/./, 2],
];
const FOLDS = FOLD_OF_SOURCE.length;
const foldOf = (source: string) => FOLD_OF_SOURCE.find(([re]) => re.test(source))![1];

/** The lowest probability at which "rules fire or p above it" keeps the target precision on the scored rows. */
export function calibrate(rows: { p: number; rule: boolean; label: boolean }[], target: number): number {
  const candidates = [...new Set(rows.map((r) => Math.round(r.p * 1000) / 1000))].sort((a, b) => b - a);
  let best = 0.99;
  for (const t of candidates) {
    if (t < 0.05 || t > 0.99) continue;
    let tp = 0;
    let fp = 0;
    for (const r of rows) {
      if (!(r.rule || r.p > t)) continue;
      if (r.label) tp++;
      else fp++;
    }
    if (tp + fp > 0 && tp / (tp + fp) >= target) best = t;
    else break;
  }
  return best;
}

function summary(rows: LabelledExample[]): string {
  const by = new Map<string, number>();
  for (const r of rows) by.set(r.source, (by.get(r.source) ?? 0) + 1);
  return [...by].map(([s, n]) => `${s}: ${n}`).join('; ');
}

if (require.main === module) {
  const splits = prepare();
  for (const [name, rows] of Object.entries(splits)) writeSplit('prompt_injection', name as 'train', rows);
  const rows = splits.train;
  const oof: { p: number; rule: boolean; label: boolean }[] = [];
  for (let k = 0; k < FOLDS; k++) {
    const model = loadModel(
      train(
        rows.filter((r) => foldOf(r.source) !== k),
        OPTS,
      ),
    );
    for (const r of rows.filter((x) => foldOf(x.source) === k))
      oof.push({
        p: windowedProbabilityFast(model, setAsideQuoted(r.text)),
        rule: ruleScore(r.text) > RULE_THRESHOLD,
        label: r.label,
      });
  }
  const p = calibrate(oof, TARGET_PRECISION);
  const fired = oof.filter((r) => r.rule || r.p > p);
  const tp = fired.filter((r) => r.label).length;
  process.stderr.write(
    `calibration: p=${p}, out-of-fold precision ${(tp / fired.length).toFixed(3)}, recall ${(tp / oof.filter((r) => r.label).length).toFixed(3)}\n`,
  );
  const model = train(rows, { ...OPTS, note: summary(rows) });
  const out = join(__dirname, '..', 'src', 'checks', 'models', 'prompt_injection.json');
  writeFileSync(out, JSON.stringify({ ...model, calibration: { p, target_precision: TARGET_PRECISION } }) + '\n');
  process.stderr.write(`wrote ${model.idx.length} weights from ${rows.length} examples to ${out}\n`);
}
