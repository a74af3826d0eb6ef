/**
 * The linear model's windowed probability (linear-model.ts: `windowedProbability`), computed without building a Set
 * per window: the distinct features of each window are found with a stamp table (one slot per hash bucket, marked
 * with the window's number). Same features, same order of summation, same result; about twice as fast on 2 KB.
 */
import { modelText, type LoadedModel } from '../linear-model';

const WORD = /[\p{L}\p{N}']+/gu;
const FNV_OFFSET = 2166136261;
const FNV_PRIME = 16777619;
const WORD_SEED = 0x9e3779b1;
const BIGRAM_SEED = 0x85ebca6b;
const CHAR_MIN = 3;
const CHAR_MAX = 5;
const WINDOW = 600;
const STRIDE = 300;

function hashString(s: string, seed: number): number {
  let h = (FNV_OFFSET ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

const stamps = new WeakMap<LoadedModel, { marks: Uint32Array; gen: number }>();

/** The margin w·x + b of one text, x its distinct hashed features scaled to unit length. */
function margin(model: LoadedModel, text: string): number {
  let st = stamps.get(model);
  if (!st) stamps.set(model, (st = { marks: new Uint32Array(model.dims), gen: 0 }));
  if (++st.gen === 0xffffffff) {
    st.marks.fill(0);
    st.gen = 1;
  }
  const { marks, gen } = st;
  const table = model.table;
  const mask = model.dims - 1;
  let sum = 0;
  let count = 0;
  const add = (f: number) => {
    if (marks[f] === gen) return;
    marks[f] = gen;
    sum += table[f]!;
    count++;
  };
  const t = modelText(text);
  const words = t.match(WORD) ?? [];
  for (let i = 0; i < words.length; i++) {
    add(hashString(words[i]!, WORD_SEED) & mask);
    if (i > 0) add(hashString(`${words[i - 1]!} ${words[i]!}`, BIGRAM_SEED) & mask);
  }
  const padded = ` ${t} `;
  for (let i = 0; i < padded.length; i++) {
    let h = FNV_OFFSET;
    for (let n = 1; n <= CHAR_MAX && i + n <= padded.length; n++) {
      h = Math.imul(h ^ padded.charCodeAt(i + n - 1), FNV_PRIME);
      if (n >= CHAR_MIN) add((h >>> 0) & mask);
    }
  }
  return count === 0 ? model.bias : model.bias + sum / Math.sqrt(count);
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** The highest probability over the whole text and its 600-character windows (every 300), as `windowedProbability`. */
export function windowedProbabilityFast(model: LoadedModel, text: string): number {
  let best = sigmoid(margin(model, text));
  if (text.length <= WINDOW) return best;
  for (let start = 0; start < text.length; start += STRIDE) {
    best = Math.max(best, sigmoid(margin(model, text.slice(start, start + WINDOW))));
    if (start + WINDOW >= text.length) break;
  }
  return best;
}
