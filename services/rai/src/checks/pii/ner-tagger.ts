import { tokenFacts, tokenize, type Token } from '../pii-entities';
import type { PiiSpan } from '../pii-patterns';

/**
 * A token tagger (O / PERSON / LOCATION) with an averaged perceptron over word, shape, affix, word-list and context
 * features, greedy left to right with the previous tag as a feature. Trained by `scripts/train-ner.ts` on the train split of
 * the PII evaluation set (WNUT-17 train share only); weights in `ner-weights.ts`.
 */
export const LABELS = ['O', 'PERSON', 'LOCATION'] as const;
export type Label = (typeof LABELS)[number];

function shapeOf(t: Token | undefined): string {
  return t === undefined ? 'none' : `${t.shape}${t.initial ? '^' : ''}`;
}

/** The features of token i given the previous predicted label. */
export function features(tokens: Token[], i: number, prevLabel: Label, facts: string[][]): string[] {
  const t = tokens[i]!;
  const p = tokens[i - 1];
  const n = tokens[i + 1];
  const f = [
    'b',
    `w=${t.low}`,
    `s=${shapeOf(t)}`,
    `suf=${t.low.slice(-3)}`,
    `pre=${t.low.slice(0, 3)}`,
    `pl=${prevLabel}`,
    `pw=${p?.low ?? '<s>'}`,
    `nw=${n?.low ?? '</s>'}`,
    `ps=${shapeOf(p)}`,
    `ns=${shapeOf(n)}`,
    `s+ns=${shapeOf(t)}|${shapeOf(n)}`,
    `pl+s=${prevLabel}|${shapeOf(t)}`,
    `pw+s=${p?.low ?? '<s>'}|${shapeOf(t)}`,
    `pw2=${tokens[i - 2]?.low ?? '<s>'}`,
    `nw2=${tokens[i + 2]?.low ?? '</s>'}`,
  ];
  if (t.attached) f.push('att');
  for (const x of facts[i]!) f.push(`f=${x}`, `f=${x}|${t.shape}`);
  if (p) for (const x of facts[i - 1]!) f.push(`pf=${x}`);
  if (n) for (const x of facts[i + 1]!) f.push(`nf=${x}`);
  return f;
}

export type Weights = Map<string, number[]>;

export function predict(weights: Weights, tokens: Token[]): Label[] {
  const facts = tokens.map(tokenFacts);
  const out: Label[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const scores = [0, 0, 0];
    for (const f of features(tokens, i, out[i - 1] ?? 'O', facts)) {
      const w = weights.get(f);
      if (w) for (let k = 0; k < 3; k++) scores[k]! += w[k]!;
    }
    let best = 0;
    for (let k = 1; k < 3; k++) if (scores[k]! > scores[best]!) best = k;
    out.push(LABELS[best]!);
  }
  return out;
}

/** Spans of adjacent tokens with the same non-O label. */
export function taggedSpans(weights: Weights, text: string): PiiSpan[] {
  const tokens = tokenize(text);
  const labels = predict(weights, tokens);
  const out: PiiSpan[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const l = labels[i]!;
    if (l === 'O') continue;
    let j = i;
    while (j + 1 < tokens.length && labels[j + 1] === l) j++;
    out.push({ type: l, start: tokens[i]!.start, end: tokens[j]!.end });
    i = j;
  }
  return out;
}
