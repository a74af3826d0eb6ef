/**
 * Trains a linear model (src/checks/linear-model.ts) on labelled JSON lines and writes its weights as JSON.
 *
 *   ts-node --transpile-only scripts/train-linear.ts --name prompt_injection --out src/checks/models/x.json \
 *     [--dims 262144] [--epochs 10] [--l2 1e-6] [--lr 0.5] [--keep 80000] train.jsonl [more.jsonl ...]
 *
 * Logistic loss, AdaGrad steps, L2 decay, the classes weighted to balance, examples shuffled by a fixed seed: the
 * same input always gives the same weights. Only the `keep` largest weights are written (the rest are near zero).
 */
import { readFileSync, writeFileSync } from 'node:fs';

import { seeded } from '../bench/eval-kit';
import { features, type LinearModel } from '../src/checks/linear-model';

interface Row {
  text: string;
  label: boolean;
  source?: string;
}

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && process.argv[i + 1]) return process.argv[i + 1]!;
  if (fallback === undefined) throw new Error(`--${name} is required`);
  return fallback;
}

export function train(
  rows: Row[],
  opts: { name: string; dims: number; epochs: number; l2: number; lr: number; keep: number; note?: string },
): LinearModel {
  const { dims, epochs, l2, lr } = opts;
  const w = new Float64Array(dims);
  const g2 = new Float64Array(dims).fill(1e-8);
  let bias = 0;
  let b2 = 1e-8;
  const pos = rows.filter((r) => r.label).length;
  const neg = rows.length - pos;
  if (pos === 0 || neg === 0) throw new Error('both classes are needed');
  const weightOf = (label: boolean) => (label ? rows.length / (2 * pos) : rows.length / (2 * neg));
  const data = rows.map((r) => ({ f: features(r.text, dims), y: r.label ? 1 : 0, c: weightOf(r.label) }));
  const rand = seeded(31);
  const order = data.map((_, i) => i);
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    let loss = 0;
    for (const k of order) {
      const { f, y, c } = data[k]!;
      const scale = f.length > 0 ? 1 / Math.sqrt(f.length) : 0;
      let z = bias;
      for (const i of f) z += w[i]! * scale;
      const p = 1 / (1 + Math.exp(-z));
      loss += -c * (y ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
      const g = c * (p - y);
      for (const i of f) {
        const gi = g * scale + l2 * w[i]!;
        const acc = g2[i]! + gi * gi;
        g2[i] = acc;
        w[i] = w[i]! - (lr * gi) / Math.sqrt(acc);
      }
      b2 += g * g;
      bias -= (lr * g) / Math.sqrt(b2);
    }
    process.stderr.write(`epoch ${epoch + 1}: mean loss ${(loss / data.length).toFixed(4)}\n`);
  }
  const ranked = [...w.keys()].filter((i) => w[i] !== 0).sort((a, b) => Math.abs(w[b]!) - Math.abs(w[a]!));
  const kept = ranked.slice(0, opts.keep).sort((a, b) => a - b);
  return {
    name: opts.name,
    dims,
    bias: Math.round(bias * 1e4) / 1e4,
    idx: kept,
    w: kept.map((i) => Math.round(w[i]! * 1e4) / 1e4),
    ...(opts.note ? { trained_on: opts.note } : {}),
  };
}

if (require.main === module) {
  const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const rows: Row[] = files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Row),
  );
  const sources = new Map<string, number>();
  for (const r of rows) sources.set(r.source ?? '?', (sources.get(r.source ?? '?') ?? 0) + 1);
  const model = train(rows, {
    name: arg('name'),
    dims: Number(arg('dims', String(2 ** 18))),
    epochs: Number(arg('epochs', '10')),
    l2: Number(arg('l2', '1e-6')),
    lr: Number(arg('lr', '0.5')),
    keep: Number(arg('keep', '80000')),
    note: [...sources].map(([s, n]) => `${s}: ${n}`).join('; '),
  });
  writeFileSync(arg('out'), JSON.stringify(model) + '\n');
  process.stderr.write(`wrote ${model.idx.length} weights from ${rows.length} examples to ${arg('out')}\n`);
}
