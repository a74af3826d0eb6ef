/**
 * Trains the shipped toxicity model (src/checks/models/toxicity.json) on the prepared train split only, with the
 * model's own input (mild expletives cut, see src/checks/toxicity/expletives.ts) and fixed hyper-parameters:
 *
 *   ts-node --transpile-only scripts/train-toxicity.ts [train.jsonl]     (scripts/train-toxicity.sh prepares it first)
 *
 * (TOXICITY_MODEL_OUT=<file> writes the weights elsewhere, e.g. a model fitted on part of train for dev experiments.)
 *
 * NB-SVM (Wang & Manning 2012, "Baselines and Bigrams"): each hashed feature of src/checks/linear-model.ts is scaled
 * by its naive-Bayes log-count ratio r = log((p_f / |p|) / (q_f / |q|)) (p, q: counts of the feature in toxic and
 * non-toxic texts plus a smoothing alpha), and a logistic regression is trained on the scaled features (the same
 * unit-length binary vector as the runtime's, AdaGrad steps, L2 decay, classes weighted to balance, a fixed shuffle).
 * Since the model is linear, r is folded into the committed weights (w·r), so the runtime (`linear-model.ts`) scores
 * it unchanged. The same input always gives the same weights. The hyper-parameters were chosen on a dev part of the
 * train split (15% by a second hash of the text), never on heldout or cross.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { evalDir } from '../bench/datasets/source';
import { seeded } from '../bench/eval-kit';
import { features, type LinearModel } from '../src/checks/linear-model';
import { modelInput } from '../src/checks/toxicity/expletives';

export const TOXICITY_TRAINING = { name: 'toxicity', dims: 65536, epochs: 3, l2: 1e-5, lr: 0.5, alpha: 1 };

interface Row {
  text: string;
  label: boolean;
  source?: string;
}

/** The naive-Bayes log-count ratio of every hashed feature over the (already featurised) rows. */
export function logCountRatio(feats: Uint32Array[], labels: boolean[], dims: number, alpha: number): Float64Array {
  const p = new Float64Array(dims).fill(alpha);
  const q = new Float64Array(dims).fill(alpha);
  feats.forEach((f, k) => {
    const counts = labels[k] ? p : q;
    for (const i of f) counts[i]! += 1;
  });
  let ps = 0;
  let qs = 0;
  for (let i = 0; i < dims; i++) {
    ps += p[i]!;
    qs += q[i]!;
  }
  const r = new Float64Array(dims);
  for (let i = 0; i < dims; i++) r[i] = Math.log(p[i]! / ps / (q[i]! / qs));
  return r;
}

export function trainNbLogistic(rows: Row[], opts: typeof TOXICITY_TRAINING & { note?: string }): LinearModel {
  const { dims, epochs, l2, lr, alpha } = opts;
  const feats = rows.map((r) => features(r.text, dims));
  const labels = rows.map((r) => r.label);
  const pos = labels.filter(Boolean).length;
  const neg = rows.length - pos;
  if (pos === 0 || neg === 0) throw new Error('both classes are needed');
  const r = logCountRatio(feats, labels, dims, alpha);
  const data = feats.map((f, k) => {
    const scale = f.length > 0 ? 1 / Math.sqrt(f.length) : 0;
    return {
      f,
      v: Float64Array.from(f, (i) => r[i]! * scale),
      y: labels[k] ? 1 : 0,
      c: labels[k] ? rows.length / (2 * pos) : rows.length / (2 * neg),
    };
  });
  const w = new Float64Array(dims);
  const g2 = new Float64Array(dims).fill(1e-8);
  let bias = 0;
  let b2 = 1e-8;
  const rand = seeded(31);
  const order = data.map((_, i) => i);
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    let loss = 0;
    for (const k of order) {
      const { f, v, y, c } = data[k]!;
      let z = bias;
      for (let i = 0; i < f.length; i++) z += w[f[i]!]! * v[i]!;
      const p = 1 / (1 + Math.exp(-z));
      loss += -c * (y ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
      const g = c * (p - y);
      for (let i = 0; i < f.length; i++) {
        const j = f[i]!;
        const gi = g * v[i]! + l2 * w[j]!;
        const acc = g2[j]! + gi * gi;
        g2[j] = acc;
        w[j] = w[j]! - (lr * gi) / Math.sqrt(acc);
      }
      b2 += g * g;
      bias -= (lr * g) / Math.sqrt(b2);
    }
    process.stderr.write(`epoch ${epoch + 1}: mean loss ${(loss / data.length).toFixed(4)}\n`);
  }
  const idx: number[] = [];
  const out: number[] = [];
  for (let i = 0; i < dims; i++) {
    const folded = Math.round(w[i]! * r[i]! * 1e4) / 1e4;
    if (folded !== 0) {
      idx.push(i);
      out.push(folded);
    }
  }
  return {
    name: opts.name,
    dims,
    bias: Math.round(bias * 1e4) / 1e4,
    idx,
    w: out,
    ...(opts.note ? { trained_on: opts.note } : {}),
  };
}

if (require.main === module) {
  const file = process.argv[2] ?? join(evalDir(), 'toxicity', 'train.jsonl');
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
  const sources = new Map<string, number>();
  for (const r of rows) {
    const s = (r.source ?? '?').split('/')[0]!;
    sources.set(s, (sources.get(s) ?? 0) + 1);
  }
  const model = trainNbLogistic(
    rows.map((r) => ({ ...r, text: modelInput(r.text) })),
    { ...TOXICITY_TRAINING, note: [...sources].map(([s, n]) => `${s}: ${n}`).join('; ') },
  );
  const out = process.env.TOXICITY_MODEL_OUT ?? join(__dirname, '..', 'src', 'checks', 'models', 'toxicity.json');
  writeFileSync(out, JSON.stringify(model) + '\n');
  process.stderr.write(`wrote ${model.idx.length} weights from ${rows.length} examples to ${out}\n`);
}
